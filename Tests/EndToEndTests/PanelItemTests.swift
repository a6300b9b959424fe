import Foundation
import ReveilleCore
import ReveilleRules
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

/// The panel item (StatusNotifierItem + dbusmenu) against a recording StatusNotifierWatcher on
/// the private bus, which reads the item and its menu as a panel does and clicks as a person would.
@Suite("Panel item end to end", .waitsOnItsOwnThread)
struct PanelItemTests {
    /// One line of the watcher's record.
    struct Seen: Decodable {
        struct MenuEntry: Decodable { var id: Int32; var label: String; var enabled: Bool; var type: String }
        var event: String
        var reason: String?
        var title: String?
        var status: String?
        var category: String?
        var itemIsMenu: Bool?
        var tooltip: [String]?
        var menu: [MenuEntry]?
        var time: Double

        var labels: [String] { (menu ?? []).map { $0.type == "separator" ? "-" : $0.enabled ? $0.label : "[\($0.label)]" } }
    }

    func seen(_ session: TestSession) throws -> [Seen] {
        guard let text = try? String(contentsOfFile: session.statusNotifierLog, encoding: .utf8) else { return [] }
        return try text.split(separator: "\n").map { try JSONDecoder().decode(Seen.self, from: Data($0.utf8)) }
    }

    /// The latest reading of the item, once `condition` holds for it.
    func snapshot(_ session: TestSession, timeout: TimeInterval = 5, _ what: String, where condition: @escaping (Seen) -> Bool) throws -> Seen {
        try eventually(timeout: timeout, what) { try seen(session).last { $0.event == "snapshot" }.flatMap { condition($0) ? $0 : nil } }
    }

    /// Clicks the menu item `label` under the alarm titled `heading`, through the watcher.
    func click(_ session: TestSession, _ label: String, under heading: String) throws {
        let result = try session.gdbusCall(destination: "org.kde.StatusNotifierWatcher", path: "/StatusNotifierWatcher",
                                           method: "io.github.reveille.TestWatcher.Click", [heading, label])
        guard result.status == 0 else { throw Subprocess.Failure("clicking \(label) under \(heading) failed: \(result.stderr)") }
    }

    @Test func aTimerCountsDownInThePanelAndItsMenuPausesAndCancelsIt() throws {
        let session = try TestSession(audio: .none)
        try session.startStatusNotifierWatcher()
        try session.startAgent()
        let before = Date().timeIntervalSince1970
        // A mnemonic mark in a title shows as written, and a tag cannot act in the tooltip.
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "25s", "--title", "Pasta_<b>")
        let first = try snapshot(session, "the item registered, with the timer") { $0.tooltip?.first == "Pasta_\u{2039}b\u{203A}" }
        #expect(try seen(session).filter { $0.event == "registered" }.allSatisfy { $0.time >= before }, "nothing registered before a timer ran")
        #expect(first.status == "Active" && first.title == "Pasta_<b>" && first.category == "ApplicationStatus" && first.itemIsMenu == true)
        #expect(first.labels == ["[Pasta__<b>]", "Pause", "Cancel"], "\(first.labels)")
        let text = try #require(first.tooltip?.last)
        #expect(text.hasPrefix("Rings at ") && text.hasSuffix(" left"), "\(text)")

        // The tooltip counts down as the notification does, in its words.
        let later = try snapshot(session, timeout: 15, "the tooltip to count down") { $0.tooltip?.last != text && $0.reason == "NewToolTip" }
        let counted = try #require(later.tooltip?.last)
        _ = try eventually("the countdown notification to say the same") {
            // Its first line (a server whose buttons answer gets no terminal commands after it).
            try session.notifications(titled: "Pasta_<b>").first { $0.body == counted || $0.body?.hasPrefix(counted + "\n") == true }
        }

        // Pause from the menu: the timer pauses; the menu offers Resume.
        try click(session, "Pause", under: "Pasta__<b>")
        _ = try eventually("Pause in the menu to pause the timer") {
            try session.agentState(of: timer.id) == "paused" ? true : nil
        }
        let paused = try snapshot(session, "the paused item") { $0.labels == ["[Pasta__<b>]", "Resume", "Cancel"] }
        #expect(paused.tooltip?.last?.hasPrefix("Paused · ") == true, "\(String(describing: paused.tooltip))")
        // A click on the menu as it was before the pause reaches nothing.
        let stalePause = try #require(first.menu?.first { $0.label == "Pause" })
        let stale = try session.gdbusCall(destination: "org.kde.StatusNotifierWatcher", path: "/StatusNotifierWatcher",
                                          method: "io.github.reveille.TestWatcher.ClickId", ["\(stalePause.id)"])
        #expect(stale.stdout.contains("com.canonical.dbusmenu.Error.UnknownItem"), "\(stale.stdout) \(stale.stderr)")
        #expect(try session.cliJSON(AlarmJSON.self, "show", timer.id).state == "paused")

        // Cancel from the menu: nothing runs, and the item goes away.
        try click(session, "Cancel", under: "Pasta__<b>")
        _ = try eventually("the item to go away") { try seen(session).last { $0.event == "unregistered" } }
        #expect(try session.cliJSON([AlarmJSON].self, "list").isEmpty)
    }

    @Test func stopAndSnoozeFromTheMenuAnswerRingingAlarms() throws {
        let session = try TestSession(audio: .none)
        try session.startStatusNotifierWatcher()
        try session.startAgent()
        let bell = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Bell")
        let gong = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Gong")
        let ringing = try snapshot(session, "both alarms ringing in the menu") {
            $0.labels.filter { $0 == "Stop" }.count == 2
        }
        #expect(ringing.status == "NeedsAttention")
        #expect(Set([["[Bell]", "Stop", "Snooze", "-", "[Gong]", "Stop", "Snooze"], ["[Gong]", "Stop", "Snooze", "-", "[Bell]", "Stop", "Snooze"]])
                .contains(ringing.labels), "\(ringing.labels)")

        try click(session, "Snooze", under: "Gong")
        _ = try eventually("Snooze in the menu to snooze Gong") {
            try session.agentState(of: gong.id) == "countdown" ? true : nil
        }
        try click(session, "Stop", under: "Bell")
        _ = try eventually("Stop in the menu to end Bell") {
            try session.cliJSON([AlarmJSON].self, "list").map(\.id) == [gong.id] ? true : nil
        }
        let after = try snapshot(session, "the item to show the snoozed alarm alone") { $0.labels == ["[Gong]", "Pause", "Cancel"] }
        #expect(after.status == "Active" && after.title == "Gong")
        #expect(try session.alerts(titled: "Bell").count == 1, "Bell rang once and stopped")
        _ = bell
    }

    @Test func withoutAPanelNothingIsRegisteredNothingFailsAndAPanelThatComesLaterGetsTheItem() throws {
        // With sound: the agent's log must be free of any complaint.
        let session = try TestSession()
        try session.startAgent()
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Alone")
        _ = try eventually(timeout: 20, "the alert without a panel") { try session.alerts(titled: "Alone").first }
        let log = try String(contentsOfFile: session.agentLog, encoding: .utf8)
        let loud = log.split(separator: "\n").filter { [" warning ", " error ", " critical "].contains(where: $0.contains) }
        #expect(loud.isEmpty, "\(loud)")
        #expect(!log.contains("StatusNotifier") && !log.contains("panel"), "nothing said above debug: \(log)")

        // A panel that starts later shows the ringing alarm, and so does one that replaces it.
        for _ in 1...2 {
            let started = Date().timeIntervalSince1970
            try session.startStatusNotifierWatcher()
            _ = try snapshot(session, "the new panel to get the item") { $0.time >= started && $0.labels.first == "[Alone]" }
            try session.stopStatusNotifierWatcher()
        }
        try session.startStatusNotifierWatcher()
        _ = try snapshot(session, "the item again") { $0.status == "NeedsAttention" }
        let stop = try session.cli("stop", timer.id)
        #expect(stop.status == 0, "reveille stop: \(stop.stderr)")
        _ = try eventually("the item to go away once nothing runs") { try seen(session).last { $0.event == "unregistered" } }
    }

    /// The items KDE's watcher holds, as `service/path`.
    func registeredWithKDE(_ session: TestSession) throws -> [String] {
        let result = try session.gdbusCall(destination: "org.kde.StatusNotifierWatcher", path: "/StatusNotifierWatcher",
                                           method: "org.freedesktop.DBus.Properties.Get",
                                           ["org.kde.StatusNotifierWatcher", "RegisteredStatusNotifierItems"])
        guard result.status == 0 else { throw Subprocess.Failure("RegisteredStatusNotifierItems: \(result.stderr)") }
        return result.stdout.matches(of: /'([^']*)'/).map { String($0.1) }
    }

    @Test func kdePlasmasOwnWatcherHoldsTheItemAgainAfterARestartAndDropsItWhenNothingRuns() throws {
        let session = try TestSession(audio: .none)
        try session.startKDEStatusNotifierWatcher()
        try session.startAgent()
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "10m", "--title", "Pasta")
        let item = try eventually("KDE's watcher to hold the item") { try registeredWithKDE(session).first }
        #expect(item.hasPrefix("org.kde.StatusNotifierItem-") && item.hasSuffix("/StatusNotifierItem"), "\(item)")
        let service = String(item.prefix { $0 != "/" })
        // Read as plasmashell's tray reads it.
        let toolTip = try session.gdbusCall(destination: service, path: "/StatusNotifierItem", method: "org.freedesktop.DBus.Properties.Get",
                                            ["org.kde.StatusNotifierItem", "ToolTip"])
        #expect(toolTip.stdout.contains("'Pasta'") && toolTip.stdout.contains("min left"), "\(toolTip.stdout) \(toolTip.stderr)")
        // Plasma calls Activate on a left click and opens the menu when the item refuses it.
        let activate = try session.gdbusCall(destination: service, path: "/StatusNotifierItem",
                                             method: "org.kde.StatusNotifierItem.Activate", ["10", "10"])
        #expect(activate.status != 0 && activate.stderr.contains("org.freedesktop.DBus.Error.UnknownMethod")
                && activate.stderr.contains("is a menu"), "\(activate.stderr)")

        // Plasma crashed or restarted: its new watcher gets the item again.
        try session.stopKDEStatusNotifierWatcher()
        try session.startKDEStatusNotifierWatcher()
        _ = try eventually("the restarted watcher to hold the item again") { try registeredWithKDE(session) == [item] ? true : nil }


        try session.cli("cancel", timer.id)
        _ = try eventually("KDE's watcher to drop the item once nothing runs") { try registeredWithKDE(session).isEmpty ? true : nil }
    }

    @Test func theSettingChangedWhileATimerRunsTakesTheItemAwayAndBringsItBackAtOnce() throws {
        let session = try TestSession(audio: .none)
        try session.startStatusNotifierWatcher()
        try session.startAgent()
        _ = try session.cliJSON(AlarmJSON.self, "timer", "10m", "--title", "Tea")
        _ = try snapshot(session, "the item with the timer") { $0.title?.contains("Tea") == true }
        try session.cli("settings", "panelItem=off")
        _ = try eventually("the item to go away") { try seen(session).last { $0.event == "unregistered" } }
        let object = try session.gdbusCall(destination: AgentInterface.busName, path: "/StatusNotifierItem",
                                           method: "org.freedesktop.DBus.Properties.Get", ["org.kde.StatusNotifierItem", "Status"])
        #expect(object.status != 0, "no item is exported once it is off: \(object.stdout)")
        let file = try String(contentsOfFile: session.directory + "/config/reveille/settings.json", encoding: .utf8)
        #expect(file.contains(#""panelItem": false"#), "written to the settings file: \(file)")
        try session.cli("settings", "panelItem=on")
        _ = try eventually("the item to come back with the running timer") {
            try seen(session).filter { $0.event == "registered" }.count == 2 ? true : nil
        }
        _ = try snapshot(session, "the item showing the timer again") { $0.title?.contains("Tea") == true }
    }

    @Test func theSettingTurnsTheItemOff() throws {
        let session = try TestSession(audio: .none)
        try FileManager.default.createDirectory(atPath: session.directory + "/config/reveille", withIntermediateDirectories: true)
        try Data(#"{"panelItem": false}"#.utf8).write(to: URL(fileURLWithPath: session.directory + "/config/reveille/settings.json"))
        try session.startStatusNotifierWatcher()
        try session.startAgent()
        _ = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Hidden")
        _ = try eventually(timeout: 20, "the alert") { try session.alerts(titled: "Hidden").first }
        let events = try seen(session).map(\.event)
        #expect(events == ["started"], "registered nothing: \(events)")
        let object = try session.gdbusCall(destination: AgentInterface.busName, path: "/StatusNotifierItem",
                                           method: "org.freedesktop.DBus.Properties.Get", ["org.kde.StatusNotifierItem", "Status"])
        #expect(object.status != 0, "no item is exported: \(object.stdout)")
    }
}
