import FoundationEssentials
import ReveilleCore
import ReveilleFuzzSupport
import ReveilleModel
import ReveilleRules

/// The settings as a file, a `SetSettings` change and `reveille settings key=value` words give
/// them: read or refused with `invalidConfiguration`, never a trap; whatever is accepted reads
/// back the same from what is written of it (`json`, `fileText`).
@main enum FuzzSettings {
    static func main() {
        FuzzTarget.main { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            var readings: [AgentSettings] = []
            do throws(AlarmError) { readings.append(try AgentSettings(fileText: text)) } catch {
                guard case .invalidConfiguration = error else { preconditionFailure("the file reading threw \(error)") }
            }
            do throws(AlarmError) { readings.append(try AgentSettings().changed(by: text)) } catch {
                guard case .invalidConfiguration = error else { preconditionFailure("a change threw \(error)") }
            }
            // The same bytes as typed words, one a line.
            let words = text.split(separator: "\n").map(String.init)
            if let typed = try? AgentSettings.changes(typed: words), let settings = try? AgentSettings().changed(by: typed) {
                readings.append(settings)
            }
            for settings in readings {
                precondition(try! AgentSettings().changed(by: settings.json) == settings, "json does not read back: \(settings.json)")
                precondition(try! AgentSettings(fileText: settings.fileText()) == settings, "the file does not read back: \(settings.fileText())")
                precondition(settings.wakeLead.isFinite && AgentSettings.wakeLeadRange.contains(settings.wakeLead))
            }
        }
    }
}
