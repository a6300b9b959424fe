import Foundation
import Glibc
import ReveilleCore
import ReveilleModel
import ReveilleRules
import SystemPackage
import Testing

/// The settings as the file, the bus's `SetSettings` and `reveille settings key=value` give them: one rule each.
@Suite("Agent settings")
struct AgentSettingsTests {
    func refusal(_ body: () throws -> Void) -> String {
        do { try body() } catch { return "\(error)" }
        Issue.record("accepted")
        return ""
    }

    @Test("a file names some keys; the rest keep their defaults; a key a newer Reveille wrote is passed over")
    func file() throws {
        let settings = try AgentSettings(fileText: #"{"wakeLead": 90, "ringOn": "all", "panelItem": false, "futureKey": 1}"#)
        var expected = AgentSettings()
        expected.wakeLead = 90
        expected.ringOn = .all
        expected.panelItem = false
        #expect(settings == expected)
        #expect(try AgentSettings(fileText: "{}") == AgentSettings())
        #expect(refusal { _ = try AgentSettings(fileText: #"{"wakelead": 90}"#) }.contains("'wakelead' is not a setting; did you mean 'wakeLead'?"))
    }

    @Test("each wrong value is refused naming the key and what it accepts, and nothing of the change is taken")
    func refusals() throws {
        let before = try AgentSettings().changed(by: #"{"alertWindow": "always"}"#)
        for (text, said) in [
            (#"{"alertWindow": "sometimes"}"#, #"alertWindow is "sometimes"; accepted: "auto", "always", "never""#),
            (#"{"wakeLead": 3601}"#, "wakeLead is 3601; accepted: seconds, 0 to 3600"),
            (#"{"wakeLead": "soon"}"#, #"wakeLead is "soon"; accepted: seconds, 0 to 3600"#),
            (#"{"panelItem": "yes"}"#, #"panelItem is "yes"; accepted: true or false"#),
            (#"{"ringOn": "my speaker"}"#, #"ringOn is "my speaker"; accepted: "default", "all", or an output's name"#),
            (#"{"ringOn": ""}"#, "accepted: \"default\""),
            (#"{"volume": 1}"#, "'volume' is not a setting; the settings are unmuteMutedSink, wakeFromSuspend, wakeLead, panelItem, alertWindow, ringOn, pauseMediaPlayers"),
            (#"{"wakeLead": 60, "wakeLead": 90}"#, "'wakeLead' is given twice"),
            (#"[1]"#, "must be a JSON object of settings"),
            ("{", "not JSON text"),
            (String(repeating: " ", count: AgentSettings.maximumTextBytes + 1), "at most 16384 are accepted"),
        ] {
            #expect(refusal { _ = try before.changed(by: text) }.contains(said), "\(text)")
        }
        // A change with one wrong key changes nothing, the right keys before it included.
        #expect(refusal { _ = try before.changed(by: #"{"panelItem": false, "wakeLead": -1}"#) }.contains("wakeLead is -1"))
        #expect(before.alertWindow == .always && before.panelItem)
    }

    @Test("written out and read back, the settings are the same; the file has one key a line")
    func roundTrip() throws {
        var settings = AgentSettings()
        settings.wakeLead = 12.5
        settings.ringOn = .output("alsa_output.usb-Speaker.analog-stereo")
        settings.pauseMediaPlayers = false
        settings.alertWindow = .never
        #expect(try AgentSettings().changed(by: settings.json) == settings)
        #expect(try AgentSettings(fileText: settings.fileText()) == settings)
        #expect(settings.fileText().split(separator: "\n").count == AgentSettings.keys.count + 2)
        #expect(AgentSettings().json.contains(#""wakeLead":60,"#), "a whole number is written without a fraction")
    }

    @Test("key=value words as typed: on/off for switches, numbers for seconds, text for the rest")
    func typed() throws {
        let text = try AgentSettings.changes(typed: ["panelItem=off", "wakeLead=90", "ringOn=all", "pauseMediaPlayers=yes"])
        let settings = try AgentSettings().changed(by: text)
        #expect(!settings.panelItem && settings.wakeLead == 90 && settings.ringOn == .all && settings.pauseMediaPlayers)
        #expect(refusal { _ = try AgentSettings().changed(by: AgentSettings.changes(typed: ["wakeLead=soon"])) }.contains(#"wakeLead is "soon""#))
        #expect(try AgentSettings().changed(by: AgentSettings.changes(typed: ["wakeLead=2m"])).wakeLead == 120, "a length as the CLI reads one")
        #expect(try AgentSettings().changed(by: AgentSettings.changes(typed: ["wakeLead=0"])).wakeLead == 0)
        // Numbers Swift reads that JSON does not: written as numbers are, or refused by the range.
        #expect(try AgentSettings().changed(by: AgentSettings.changes(typed: ["wakeLead=+5"])).wakeLead == 5)
        #expect(try AgentSettings().changed(by: AgentSettings.changes(typed: ["wakeLead=.5"])).wakeLead == 0.5)
        for text in ["nan", "inf", "-inf"] {
            #expect(refusal { _ = try AgentSettings().changed(by: AgentSettings.changes(typed: ["wakeLead=\(text)"])) }.contains("accepted: seconds, 0 to 3600"), "\(text)")
        }
        // An output's name holds no format characters (a right-to-left override) nor other spaces.
        #expect(refusal { _ = try AgentSettings().changed(by: AgentSettings.changes(typed: ["ringOn=speaker\u{202E}"])) }.contains("ringOn is"))
        #expect(refusal { _ = try AgentSettings().changed(by: AgentSettings.changes(typed: ["ringOn=a\u{00A0}b"])) }.contains("ringOn is"))
        #expect(refusal { _ = try AgentSettings.changes(typed: ["wakeLead"]) }.contains("'wakeLead' is not key=value"))
        #expect(refusal { _ = try AgentSettings.changes(typed: ["=1"]) }.contains("is not key=value"))
    }
}

/// The file the settings live in: read again before each change, written whole and private, never over what cannot be read.
@Suite("Settings file")
struct SettingsFileTests {
    let directory = FilePath(NSTemporaryDirectory() + "reveille-settings-\(UUID().uuidString)")
    var file: String { directory.appending("settings.json").string }

    @Test("no file: the defaults; a change writes every key, one a line, mode 0600, and keeps what was edited by hand")
    func change() throws {
        defer { try? FileManager.default.removeItem(atPath: directory.string) }
        let settings = SettingsFile(directory: directory)
        #expect(settings.load().settings == AgentSettings() && settings.load().problem == nil)
        #expect(try settings.change(by: #"{"wakeLead": 90}"#).wakeLead == 90)
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600)
        #expect(try String(contentsOfFile: file, encoding: .utf8).contains("\n  \"wakeLead\": 90,\n"))
        // Edited by hand meanwhile: the next change keeps the edit.
        try #"{"wakeLead": 90, "panelItem": false}"#.write(toFile: file, atomically: true, encoding: .utf8)
        let after = try settings.change(by: #"{"ringOn": "all"}"#)
        #expect(after.wakeLead == 90 && !after.panelItem && after.ringOn == .all)
        #expect(settings.load().settings == after)
    }

    @Test("keys a newer Reveille wrote stay; a link is written where it leads and stays a link; a change that changes nothing writes nothing")
    func keeps() throws {
        defer { try? FileManager.default.removeItem(atPath: directory.string) }
        let elsewhere = directory.appending("dotfiles")
        try FileManager.default.createDirectory(atPath: elsewhere.string, withIntermediateDirectories: true)
        let target = elsewhere.appending("reveille-settings.json").string
        try #"{"wakeLead": 90, "snoozeStyle": {"gentle": true}}"#.write(toFile: target, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: "dotfiles/reveille-settings.json")
        let settings = SettingsFile(directory: directory)
        #expect(try settings.change(by: #"{"ringOn": "all"}"#).ringOn == .all)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: file) == "dotfiles/reveille-settings.json", "still a link")
        let written = try String(contentsOfFile: target, encoding: .utf8)
        #expect(written.contains(#""ringOn": "all""#) && written.contains(#""wakeLead": 90"#))
        #expect(written.contains(#""snoozeStyle": {"gentle":true}"#), "a newer Reveille's key kept: \(written)")
        let before = try FileManager.default.attributesOfItem(atPath: target)[.modificationDate] as? Date
        usleep(20_000)
        _ = try settings.change(by: #"{"ringOn": "all"}"#)
        #expect(try FileManager.default.attributesOfItem(atPath: target)[.modificationDate] as? Date == before, "nothing to change: not written")
    }

    @Test("a file that cannot be read is said so, the defaults apply, and a change does not write over it")
    func unreadable() throws {
        defer { try? FileManager.default.removeItem(atPath: directory.string) }
        try FileManager.default.createDirectory(atPath: directory.string, withIntermediateDirectories: true)
        let settings = SettingsFile(directory: directory)
        for (content, said) in [(#"{"alertWindow": "sometimes"}"#, "alertWindow is \"sometimes\""),
                                (String(repeating: " ", count: 20_000), "20000 bytes, more than the 16384 bytes")] {
            try content.write(toFile: file, atomically: true, encoding: .utf8)
            let loaded = settings.load()
            #expect(loaded.settings == AgentSettings())
            #expect(loaded.problem?.contains(said) == true, "\(loaded.problem ?? "")")
            do {
                _ = try settings.change(by: #"{"wakeLead": 90}"#)
                Issue.record("written over an unreadable file")
            } catch {
                #expect("\(error)".contains("could not be read, so it was not changed"), "\(error)")
            }
            #expect(try String(contentsOfFile: file, encoding: .utf8) == content)
        }
        // A FIFO in its place is refused, not read (a read would block the agent for ever).
        try FileManager.default.removeItem(atPath: file)
        #expect(mkfifo(file, 0o600) == 0)
        #expect(settings.load().problem?.contains("not a regular file") == true)
    }
}
