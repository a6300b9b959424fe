import FoundationEssentials
import ReveilleModel
import ReveilleRules
import SystemPackage

/// The person's settings file, `$XDG_CONFIG_HOME/reveille/settings.json`: a file a person may
/// also edit by hand, so it is read again before each change and written whole (atomic, 0600,
/// one key a line) with every setting, a change merged into what the file says at that moment.
/// Keys that are no setting (a newer Reveille's) are kept as they were; a file that is a link
/// (to a dotfiles folder) is written where it leads, the link kept.
package struct SettingsFile: Sendable {
    package let file: FilePath

    package init(directory: FilePath) {
        file = directory.appending("settings.json")
    }

    /// What the file holds: the defaults when there is no file; when it cannot be read (not a
    /// regular file, too large, not settings), the defaults and why, naming the file.
    package func load() -> (settings: AgentSettings, problem: String?) {
        do {
            return (try read(), nil)
        } catch {
            return (AgentSettings(), "\(file) could not be read (\(error)); the default settings apply")
        }
    }

    /// The file's settings, or why they cannot be read.
    package func read() throws(AlarmError) -> AgentSettings {
        try contents().settings
    }

    /// The file's settings, the members it has that are no setting, and whether there is a file.
    private func contents() throws(AlarmError) -> (settings: AgentSettings, others: [JSONValue.Member], exists: Bool) {
        let data: Data?
        do { data = try StoredFile.read(file, maximumBytes: AgentSettings.maximumTextBytes) } catch {
            throw .invalidConfiguration("\(error)")
        }
        guard let data else { return (AgentSettings(), [], false) }
        guard let text = String(validating: data, as: UTF8.self) else { throw .invalidConfiguration("settings.json is not UTF-8 text") }
        let value: JSONValue
        do { value = try StrictJSON.parse(text) } catch { throw .invalidConfiguration("settings.json: \(error)") }
        let settings = try AgentSettings().changed(by: value, place: "settings.json", unknownKeys: .passOver)
        guard case .object(let members) = value else { return (settings, [], true) }
        return (settings, members.filter { AgentSettings.key($0.key) == nil }, true)
    }

    /// Applies `changes` (a JSON object of some settings) to what the file holds now, and writes
    /// the result unless it changes nothing; returns it. A file that cannot be read is not
    /// written over: the refusal says why, and the person's file stays as it is.
    package func change(by changes: String) throws(AlarmError) -> AgentSettings {
        let current: (settings: AgentSettings, others: [JSONValue.Member], exists: Bool)
        do { current = try contents() } catch {
            throw .invalidConfiguration("\(file) could not be read, so it was not changed (\(error)); correct or remove it, then try again")
        }
        let changed = try current.settings.changed(by: changes)
        guard changed != current.settings || !current.exists else { return changed }
        do {
            let target = try writtenPath()
            let folder = target.removingLastComponent()
            // A folder of its own is made private; one that is there (perhaps through a link) is left as it is.
            if !FileManager.default.fileExists(atPath: folder.string) { try AtomicFile.makePrivateDirectory(folder) }
            try AtomicFile.write(Data(changed.fileText(keeping: current.others).utf8), to: target)
        } catch is AtomicFile.RenamedButNotSynced {
            // In place: a restart reads it.
        } catch {
            throw .storageFailure("could not write \(file) (\(error)); the settings were not changed")
        }
        return changed
    }

    /// Where a write goes: the file, or where it leads when it is a link (the link stays).
    private func writtenPath() throws -> FilePath {
        let attributes = try? FileManager.default.attributesOfItem(atPath: file.string)
        guard attributes?[.type] as? FileAttributeType == .typeSymbolicLink else { return file }
        let destination = FilePath(try FileManager.default.destinationOfSymbolicLink(atPath: file.string))
        return destination.isAbsolute ? destination : file.removingLastComponent().pushing(destination)
    }
}
