import FoundationEssentials
import SystemPackage

/// The person's settings file, `$XDG_CONFIG_HOME/reveille/settings.json`: a file a person may
/// also edit by hand, so it is read again before each change and written whole (atomic, 0600,
/// one key a line) with every setting, a change merged into what the file says at that moment.
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
        let data: Data?
        do { data = try StoredFile.read(file, maximumBytes: AgentSettings.maximumTextBytes) } catch {
            throw .invalidConfiguration("\(error)")
        }
        guard let data else { return AgentSettings() }
        guard let text = String(validating: data, as: UTF8.self) else { throw .invalidConfiguration("settings.json is not UTF-8 text") }
        return try AgentSettings(fileText: text)
    }

    /// Applies `changes` (a JSON object of some settings) to what the file holds now, and writes
    /// the result; returns it. A file that cannot be read is not written over: the refusal says
    /// why, and the person's file stays as it is.
    package func change(by changes: String) throws(AlarmError) -> AgentSettings {
        let current: AgentSettings
        do { current = try read() } catch {
            throw .invalidConfiguration("\(file) could not be read, so it was not changed (\(error)); correct or remove it, then try again")
        }
        let changed = try current.changed(by: changes)
        do {
            try AtomicFile.makePrivateDirectory(file.removingLastComponent())
            try AtomicFile.write(Data(changed.fileText.utf8), to: file)
        } catch is AtomicFile.RenamedButNotSynced {
            // In place: a restart reads it.
        } catch {
            throw .storageFailure("could not write \(file) (\(error)); the settings were not changed")
        }
        return changed
    }
}
