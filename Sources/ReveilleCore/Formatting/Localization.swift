import CGettext
import FoundationEssentials
import Glibc
import ReveilleSystem
import ReveilleWords
import Synchronization
import SystemPackage

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
package struct GettextCatalog: LocaleCatalog {
    package static let domain = "reveille"
    package let clockStyle: ClockStyle

    /// Reads the locale's clock now: `setUp` has set `LC_TIME`.
    init() { clockStyle = .fromEnvironment() }

    /// gettext returns the argument's own pointer when it has no translation; that buffer lives
    /// only during the call, so the answer is read inside it.
    package func text(_ msgid: String) -> String {
        if let known = Self.translations.withLock({ $0[msgid] }) { return known }
        let text = msgid.withCString { id in
            guard let translated = dgettext(Self.domain, id), translated != id else { return msgid }
            return String(cString: translated)
        }
        Self.translations.withLock { $0[msgid] = text }
        return text
    }

    /// Each message as looked up once: a table of 10,000 alarms asks for the same few words
    /// tens of thousands of times, and gettext's lookup (a lock, a hash, a copy) adds up.
    fileprivate static let translations = Mutex<[String: String]>([:])

    package func plural(_ singular: String, _ plural: String, _ count: Int) -> String {
        singular.withCString { one in
            plural.withCString { many in
                guard let translated = dngettext(Self.domain, one, many, UInt(max(0, count))), translated != one, translated != many else {
                    return count == 1 ? singular : plural
                }
                return String(cString: translated)
            }
        }
    }
}

extension Localization {
    package static let domain = GettextCatalog.domain

    /// Reads the user's locale for messages and times (`setlocale`), binds the catalogs and
    /// installs them for `L`. Numbers stay C: Swift's own parsing and formatting never read the
    /// C locale anyway. (`getenv` for the one variable: the whole environment as a dictionary
    /// cost a command about 0.3 ms before it could ask anything.)
    package static func setUp() {
        setlocale(LC_MESSAGES, "")
        setlocale(LC_TIME, "")
        setlocale(LC_CTYPE, "")
        let configured = EnvironmentVariable.value("REVEILLE_LOCALEDIR")
        let directory = configured.flatMap { $0.hasPrefix("/") ? $0 : nil } ?? Installation.localeDirectory()
        bindtextdomain(domain, directory)
        bind_textdomain_codeset(domain, "UTF-8")
        GettextCatalog.translations.withLock { $0 = [:] }
        bootstrap(GettextCatalog())
    }
}
