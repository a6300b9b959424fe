import FoundationEssentials
import ReveilleAgentRuntime
import ReveilleCore
import ReveilleModel
import ReveilleRules
import ReveilleSystem
import ReveilleWords
import SystemPackage

/// Finds sound files by name: the user's folders, Reveille's bundled sounds, then the
/// freedesktop sound theme. A name can never reach outside those folders.
package struct SoundLibrary: Sendable {
    /// One resolvable sound.
    package struct Entry: Codable, Equatable, Sendable {
        package var name: String
        package var path: String
        /// `user`, `bundled` or `theme`.
        package var source: String
        /// Whether it is meant to get attention (an alarm, a bell, a completion); a theme's other
        /// sounds (a plug unplugged, a channel test) are listed after these.
        package var suitedForAlarms = true

        package init(name: String, path: String, source: String, suitedForAlarms: Bool = true) {
            (self.name, self.path, self.source, self.suitedForAlarms) = (name, path, source, suitedForAlarms)
        }
    }

    /// The bundled sound that `.default` plays.
    package static let defaultName = "alarm"
    /// What the notification server is asked to play when Reveille cannot.
    package static let themeFallback = NotificationContent.themeSound
    package static let extensions = ["oga", "ogg", "opus", "flac", "wav"]
    /// Extensions a name may carry and still mean the sound without it (`Chime.caf`, as an
    /// iOS app names its bundled file, is `chime`).
    package static let nameExtensions = Set(extensions + ["caf", "aif", "aiff", "mp3", "m4a", "aac"])

    private let folders: [(path: String, source: String)]
    private let themeFolders: [String]

    package init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.local/share"
        let installed = Installation.shared("reveille/sounds")
        // The build tree's Sounds/, for running from a checkout.
        // (this file is Sources/ReveilleSound/SoundLibrary.swift).
        let buildTree = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sounds").path
        folders = [(dataHome + "/sounds/reveille", "user"), (dataHome + "/sounds", "user"),
                   (installed, "bundled"), (buildTree, "bundled")]
        let dataDirs = (environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share")
            .split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        theme = SoundTheme(name: SoundTheme.chosenName(environment: environment),
                           bases: [dataHome + "/sounds"] + dataDirs.map { $0 + "/sounds" })
        themeFolders = theme.folders
    }

    /// The desktop's sound theme and the themes it inherits.
    package let theme: SoundTheme

    /// Theme sounds meant to get attention, listed first by `reveille sounds`.
    package static func suitedForAlarms(_ name: String) -> Bool {
        ["alarm", "bell", "clock", "complete", "timer", "ring", "phone-incoming", "message-new-instant", "alert", "beep",
         "chime", "dialog-warning", "service-login"].contains { name.contains($0) }
    }

    /// At most this many sounds are listed, and this many names read from one folder: an app
    /// naming an unknown sound makes the agent list them, and a folder of a million files must
    /// cost it no more than a folder of a thousand.
    package static let maximumEntries = 1_000
    package static let maximumNamesPerFolder = 4_000

    /// Every name it can resolve (up to `maximumEntries`), each with the file that wins.
    package func entries() -> [Entry] {
        var seen = Set<String>()
        var result: [Entry] = []
        for (folder, source) in folders + themeFolders.map({ ($0, "theme") }) where result.count < Self.maximumEntries {
            let files = (try? FilePath(folder).directoryNames(limit: Self.maximumNamesPerFolder)) ?? []
            for file in files.sorted() where result.count < Self.maximumEntries {
                let url = URL(fileURLWithPath: file)
                guard Self.extensions.contains(url.pathExtension.lowercased()) else { continue }
                let name = url.deletingPathExtension().lastPathComponent
                guard !seen.contains(name), FileManager.default.isReadableFile(atPath: folder + "/" + file) else { continue }
                seen.insert(name)
                result.append(Entry(name: name, path: folder + "/" + file, source: source,
                                    suitedForAlarms: source != "theme" || Self.suitedForAlarms(name)))
            }
        }
        // Alarm sounds first, then the theme's others; each group in the search order.
        return result.filter(\.suitedForAlarms) + result.filter { !$0.suitedForAlarms }
    }

    /// The file for `sound`. A path is accepted only when `allowPaths` (the user's own CLI);
    /// a name must be a plain file name. Throws `invalidConfiguration` listing what exists.
    package func resolve(_ sound: AlertConfiguration.AlertSound, allowPaths: Bool) throws(AlarmError) -> String {
        let name: String
        switch sound {
        case .default: name = Self.defaultName
        case .named(let text): name = text
        }
        if name.contains("/") {
            guard allowPaths else {
                throw .invalidConfiguration(L("sound '%@' is a path; apps may only name a sound (see `reveille sounds`)", name))
            }
            guard name.hasPrefix("/"), FileManager.default.isReadableFile(atPath: name) else {
                throw .invalidConfiguration(name.hasPrefix("/") && !FileManager.default.fileExists(atPath: name)
                    ? L("sound file '%@' does not exist; give a sound name (`reveille sounds`) or a sound file's path", name)
                    : L("sound file '%@' cannot be read; give an absolute path to a readable file", name))
            }
            return try Self.playable(name)
        }
        guard name.wholeMatch(of: /[A-Za-z0-9][A-Za-z0-9._+-]{0,99}/) != nil, !name.contains("..") else {
            throw .invalidConfiguration(L("sound name '%@' is not a plain name; accepted: letters, digits, '.', '_', '+', '-'", name))
        }
        let bare = Self.withoutExtension(name)
        // The user's and the bundled sounds by the name as given; then the theme chain, each
        // name the spec's way (without its last dash-part in turn).
        let searches = folders.map { (bare, $0.path, $0.source) }
            + SoundTheme.fallbacks(bare).flatMap { candidate in themeFolders.map { (candidate, $0, "theme") } }
        for (candidate, folder, source) in searches {
            for ext in Self.extensions {
                let path = "\(folder)/\(candidate).\(ext)"
                guard FileManager.default.isReadableFile(atPath: path) else { continue }
                return try checked(path, from: source)
            }
        }
        // Names are matched regardless of case only when no file has the name as written.
        let entries = entries()
        if let entry = entries.first(where: { $0.name.lowercased() == bare.lowercased() }) {
            return try checked(entry.path, from: entry.source)
        }
        let names = entries.map(\.name)
        throw .invalidConfiguration(names.isEmpty ? L("no sound named '%@'; available: %@", name, L("none"))
            : L("no sound named '%@'; the closest: %@ (`reveille sounds` lists all %@)", name,
                InputParser.closest(to: bare, among: names).joined(separator: ", "), String(names.count)))
    }

    /// What rings when an alarm's own sound cannot be played, in the order tried: the default
    /// as it resolves (the user's own `alarm`, else the bundled one), every bundled `alarm`,
    /// then the sound theme's `alarm-clock-elapsed`. A broken override never silences an alarm.
    package func defaultPaths() -> [String] {
        let bundled = folders.filter { $0.source == "bundled" }
            .flatMap { folder in Self.extensions.map { "\(folder.path)/\(Self.defaultName).\($0)" } }
            .filter { FileManager.default.isReadableFile(atPath: $0) }
        let candidates = [try? resolve(.default, allowPaths: false)] + bundled + [try? resolve(.named(Self.themeFallback), allowPaths: false)]
        var seen = Set<String>()
        return candidates.compactMap { $0 }.filter { seen.insert($0).inserted }
    }

    /// The user's folders may hold anything (a FIFO, a huge file): checked now. Bundled and
    /// theme sounds are the system's; every file is checked again when it rings.
    private func checked(_ path: String, from source: String) throws(AlarmError) -> String {
        source == "user" ? try Self.playable(path) : path
    }

    /// `name` without an audio file extension (`Chime.caf` → `Chime`).
    package static func withoutExtension(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex,
              nameExtensions.contains(name[name.index(after: dot)...].lowercased()) else { return name }
        return String(name[..<dot])
    }

    /// `path` when it is a sound Reveille can play (a regular file of bounded size and length
    /// that libsndfile reads); else why not.
    package static func playable(_ path: String) throws(AlarmError) -> String {
        do {
            _ = try SoundFile.check(path)
        } catch {
            throw .invalidConfiguration(L("sound %@", error.description))
        }
        return path
    }
}
