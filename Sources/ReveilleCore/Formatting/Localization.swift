import CGettext
import FoundationEssentials
import Glibc
import Synchronization
import SystemPackage
import ReveilleSystem

/// Where the running binary's data is: found from the binary itself, never from the current
/// folder. `argv[0]` is only `reveille` when the shell found it through PATH, so the kernel's
/// `/proc/self/exe` says where it is.
package enum Installation {
    /// The running binary's absolute path, symbolic links resolved (`/proc/self/exe`).
    package static let executable: String = {
        guard let path = try? FilePath("/proc/self/exe").linkTarget(), !path.isEmpty else {
            return URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath().path
        }
        return path
    }()

    /// `share/<relative>` of the prefix `executable` is installed in (`PREFIX/bin/reveille`
    /// reads `PREFIX/share/<relative>`).
    package static func shared(_ relative: String, executable: String = executable) -> String {
        prefix(executable).appending("share").appending(relative).string
    }

    /// The catalogs: the installed `share/locale`, else, for a binary run from the build tree
    /// (`.build/<triple>/debug/reveille`, `swift run`), the `.build/locale` of `make locale`.
    package static func localeDirectory(executable: String = executable) -> String {
        let installed = shared("locale", executable: executable)
        let buildTree = prefix(executable).removingLastComponent().appending("locale").string
        return !FileManager.default.fileExists(atPath: installed) && FileManager.default.fileExists(atPath: buildTree)
            ? buildTree : installed
    }

    /// The folder above the binary's, by path arithmetic: `URL` was 2.6% of `reveille list`'s CPU (perf).
    private static func prefix(_ executable: String) -> FilePath {
        FilePath(executable).removingLastComponent().removingLastComponent()
    }
}

/// Text in the user's language, through the C library's gettext: catalogs
/// `LANG/LC_MESSAGES/reveille.mo` (built from `po/` by `msgfmt`) under the `share/locale`
/// beside the installed binaries, or under `REVEILLE_LOCALEDIR` (the tests).
package enum Localization {
    package static let domain = "reveille"

    /// Reads the user's locale for messages and times (`setlocale`) and binds the catalogs.
    /// Numbers stay C: Swift's own parsing and formatting never read the C locale anyway.
    /// (`getenv` for the one variable: the whole environment as a dictionary cost a command
    /// about 0.3 ms before it could ask anything.)
    package static func setUp() {
        setlocale(LC_MESSAGES, "")
        setlocale(LC_TIME, "")
        setlocale(LC_CTYPE, "")
        let configured = getenv("REVEILLE_LOCALEDIR").map { String(cString: $0) }
        let directory = configured.flatMap { $0.hasPrefix("/") ? $0 : nil } ?? Installation.localeDirectory()
        bindtextdomain(domain, directory)
        bind_textdomain_codeset(domain, "UTF-8")
        translations.withLock { $0 = [:] }
    }

    /// `msgid` in the user's language (itself when no catalog has it). gettext returns the
    /// argument's own pointer when it has no translation; that buffer lives only during the
    /// call, so the answer is read inside it.
    package static func text(_ msgid: String) -> String {
        if let known = translations.withLock({ $0[msgid] }) { return known }
        let text = msgid.withCString { id in
            guard let translated = dgettext(domain, id), translated != id else { return msgid }
            return String(cString: translated)
        }
        translations.withLock { $0[msgid] = text }
        return text
    }

    /// Each message as looked up once: a table of 10,000 alarms asks for the same few words
    /// tens of thousands of times, and gettext's lookup (a lock, a hash, a copy) adds up.
    private static let translations = Mutex<[String: String]>([:])

    /// The singular or plural form for `count`, as the language's plural rule picks it.
    package static func plural(_ singular: String, _ plural: String, _ count: Int) -> String {
        singular.withCString { one in
            plural.withCString { many in
                guard let translated = dngettext(domain, one, many, UInt(max(0, count))), translated != one, translated != many else {
                    return count == 1 ? singular : plural
                }
                return String(cString: translated)
            }
        }
    }

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
