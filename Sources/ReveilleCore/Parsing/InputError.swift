/// Text a person typed that could not be read; says what it was and what is accepted.
package struct InputError: Error, Hashable, Sendable, CustomStringConvertible {
    package var text: String
    package var expected: String
    package var accepted: String

    package init(text: String, expected: String, accepted: String) {
        self.text = text
        self.expected = expected
        self.accepted = accepted
    }

    package var description: String {
        L("could not read '%@' as %@; accepted: %@", text, expected, accepted)
    }
}
