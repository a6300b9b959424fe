import Synchronization

/// Where text in the person's language comes from: gettext's catalogs in every Reveille program
/// (`GettextCatalog`, ReveilleCore, installed by `Localization.setUp()`), or the English of the
/// source (`SourceText`: tests, and a process that installed none). A protocol, so the modules
/// that word messages (the rules' refusals, the agent's runtime) need no C library: the runtime's
/// whole closure holds none.
package protocol LocaleCatalog: Sendable {
    /// `msgid` in the person's language (itself where no catalog has it).
    func text(_ msgid: String) -> String
    /// The singular or plural form for `count`, as the language's plural rule picks it.
    func plural(_ singular: String, _ plural: String, _ count: Int) -> String
    /// How the locale writes a time of day.
    var clockStyle: ClockStyle { get }
}

/// The messages as the source writes them: English, a 24-hour clock.
package struct SourceText: LocaleCatalog {
    package init() {}
    package func text(_ msgid: String) -> String { msgid }
    package func plural(_ singular: String, _ plural: String, _ count: Int) -> String { count == 1 ? singular : plural }
    package var clockStyle: ClockStyle { .twentyFourHour }
}

/// Text in the person's language: `L` and `Ln` read the process's catalog, installed once at
/// start (`bootstrap`, as swift-log's `LoggingSystem.bootstrap` installs its handler), before any
/// part that words a message is made.
package enum Localization {
    private static let installed = Mutex<any LocaleCatalog>(SourceText())

    /// Installs the process's catalog (`Localization.setUp()` installs gettext's).
    package static func bootstrap(_ catalog: any LocaleCatalog) {
        installed.withLock { $0 = catalog }
    }

    /// The catalog every `L` reads.
    package static var catalog: any LocaleCatalog { installed.withLock { $0 } }

    /// `msgid` in the person's language (itself when no catalog has it).
    package static func text(_ msgid: String) -> String { catalog.text(msgid) }

    /// The singular or plural form for `count`.
    package static func plural(_ singular: String, _ plural: String, _ count: Int) -> String {
        catalog.plural(singular, plural, count)
    }

    /// How the person's locale writes a time of day.
    package static var clockStyle: ClockStyle { catalog.clockStyle }

    /// Fills `%@` placeholders in order, or `%1$@`, `%2$@` ... where a translation reorders them;
    /// `%%` is a percent sign, any other `%` stays as it is.
    ///
    /// Scans the UTF-8 bytes, not Characters: every marker is ASCII, and breaking each line of a
    /// 10,000-alarm list into graphemes to find them took 5% of `reveille list`'s CPU.
    package static func format(_ template: String, _ arguments: [String]) -> String {
        let percent = UInt8(ascii: "%"), at = UInt8(ascii: "@"), dollar = UInt8(ascii: "$")
        let bytes = template.utf8
        guard bytes.contains(percent) else { return template }
        var result = ""
        var next = 0
        var copied = bytes.startIndex
        var index = bytes.startIndex
        while let found = bytes[index...].firstIndex(of: percent) {
            result += template[copied..<found]
            let marker = bytes.index(after: found)
            var end = marker
            if marker < bytes.endIndex, bytes[marker] == at {
                result += next < arguments.count ? arguments[next] : ""
                next += 1
                end = bytes.index(after: marker)
            } else if marker < bytes.endIndex, bytes[marker] == percent {
                result += "%"
                end = bytes.index(after: marker)
            } else if let position = bytes[marker...].prefix(1).first.flatMap({ (49...57).contains($0) ? Int($0) - 48 : nil }),
                      bytes[marker...].dropFirst().starts(with: [dollar, at]) {
                result += position <= arguments.count ? arguments[position - 1] : ""
                end = bytes.index(marker, offsetBy: 3)
            } else {
                result += "%"
            }
            copied = end
            index = end
        }
        return result + template[copied...]
    }
}

/// `msgid` translated, its placeholders filled: `L("Rings at %@ · %@ left", time, left)`.
package func L(_ msgid: String, _ arguments: String...) -> String {
    Localization.format(Localization.text(msgid), arguments)
}

/// A count's phrase in the right plural form: `Ln("%@ alarm", "%@ alarms", n, String(n))`.
package func Ln(_ singular: String, _ plural: String, _ count: Int, _ arguments: String...) -> String {
    Localization.format(Localization.plural(singular, plural, count), arguments)
}
