/// Text a person typed that could not be read; says what it was and what is accepted.
public struct InputError: Error, Hashable, Sendable, CustomStringConvertible {
    public var text: String
    public var expected: String
    public var accepted: String

    public init(text: String, expected: String, accepted: String) {
        self.text = text
        self.expected = expected
        self.accepted = accepted
    }

    public var description: String {
        L("could not read '%@' as %@; accepted: %@", text, expected, accepted)
    }
}
