import Foundation
import ReveilleCore
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

/// The upcoming-alarm notice (issue 52) through the real agent, CLI and notification server:
/// shown ahead of an alarm, quiet, with Skip this time; Skip means no ring and a history entry
/// "skipped"; a closed notice stays closed; timers show none; the setting withdraws it.
@Suite("Upcoming-alarm notice end to end", .waitsOnItsOwnThread)
struct UpcomingNoticeEndToEndTests {
    struct Entry: Decodable { var alarm: String, outcome: String, rang: String? }

    @Test func skipFromTheNoticeMeansNoRingAndAHistoryEntry() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let tea = try session.cliJSON(AlarmJSON.self, "timer", "10m", "--title", "Tea")
        let dentist = try session.cliJSON(AlarmJSON.self, "add", "in 10m", "--title", "Dentist")
        let notice = try eventually(timeout: 10, "the upcoming notice") { try session.upcoming("Dentist").first }
        #expect(notice.actions == ["skip", "Skip this time"], "\(notice.actions ?? [])")
        #expect(notice.hints?["urgency"] == .number(0) && notice.hints?["suppress-sound"] == .flag(true))
        #expect(notice.body?.contains("Already up?") == true, "\(notice.body ?? "")")

        try session.press(label: "Skip this time", on: notice.id)
        _ = try eventually(timeout: 10, "the skipped alarm to end") {
            try session.cliJSON([AlarmJSON].self, "list").contains { $0.id == dentist.id } ? nil : true
        }
        let entry = try eventually(timeout: 10, "the skip in the history") {
            try session.cliJSON([Entry].self, "history").first { $0.alarm == dentist.id }
        }
        #expect(entry.outcome == "skipped" && entry.rang == nil)
        _ = try eventually(timeout: 10, "the notice to go") {
            try session.events.contains { $0.event == "closed" && $0.id == notice.id } ? true : nil
        }
        #expect(try session.upcoming("Tea").isEmpty, "a timer shows no upcoming notice")
        #expect(try session.cliJSON([AlarmJSON].self, "list").contains { $0.id == tea.id })
    }

    @Test func aClosedNoticeStaysClosedAndTheSettingWithdrawsIt() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let first = try session.cliJSON(AlarmJSON.self, "add", "in 20m", "--title", "Run")
        let shown = try eventually(timeout: 10, "the first notice") { try session.upcoming("Run").first }
        // The person closes it: an edit that keeps the time does not bring it back.
        _ = try session.gdbusCall(destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                                  method: "io.github.reveille.TestNotifications.Close", ["\(shown.id)", "2"])
        #expect(try session.cli("edit", first.id, "--sound", "bell").status == 0)
        let second = try session.cliJSON(AlarmJSON.self, "add", "in 25m", "--title", "Swim")
        let swim = try eventually(timeout: 10, "the second notice") { try session.upcoming("Swim").first }
        #expect(try session.upcoming("Run").count == 1, "closed by the person, not shown again for that occurrence")
        #expect(try session.cli("settings", "upcomingNotice=off").status == 0)
        _ = try eventually(timeout: 10, "the setting to withdraw the notice") {
            try session.events.contains { $0.event == "closed" && $0.id == swim.id } ? true : nil
        }
        #expect(try session.cliJSON([AlarmJSON].self, "list").contains { $0.id == second.id }, "off withdraws the notice, not the alarm")
    }
}

extension TestSession {
    /// The upcoming-alarm notices shown for the alarm titled `title` ("Title at 06:30").
    func upcoming(_ title: String) throws -> [Event] {
        try events.filter { $0.event == "notify" && $0.summary?.hasPrefix("\(title) at ") == true }
    }
}
