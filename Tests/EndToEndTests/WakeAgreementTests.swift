import Foundation
import ReveilleCore
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

/// Issue 27: `show` once said an alarm would wake the computer while `status` said it could
/// not. Both now read the agent's one `WakeStatus`. The agent runs without `CAP_WAKE_ALARM`
/// (which root has), so that the wake helper is its way to wake the machine.
@Suite("show and status agree on waking", .waitsOnItsOwnThread)
struct WakeAgreementTests {
    struct Shown: Decodable { var wakes: Bool, wakeReason: String? }

    /// What `show` (text and JSON), `list --json` and `status` say of waking for `id`.
    func said(_ session: TestSession, _ id: String) throws -> (show: String, json: Shown, list: [Shown], status: String) {
        (try session.cli("show", id).stdout, try session.cliJSON(Shown.self, "show", id), try session.cliJSON([Shown].self, "list"),
         try session.cli("status").stdout)
    }

    @Test func withoutTheWakeHelperShowSaysNoAsStatusDoes() throws {
        let session = try TestSession(audio: .none, system: .wake(polkitAllows: true, helper: false))
        try session.startAgent(launcher: ["/usr/bin/setpriv", "--bounding-set", "-wake_alarm"])
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1h", "--title", "No helper")
        let reason = "the wake helper is not installed"
        _ = try eventually("the agent to find no helper") { try session.cli("status").stdout.contains(reason) ? true : nil }
        let (show, json, list, status) = try said(session, timer.id)
        #expect(status.contains("Wakes the computer: no; \(reason)"), "\(status)")
        #expect(show.contains("wakes:") && show.contains("no; \(reason)") && !show.contains("the computer from suspend"), "\(show)")
        #expect(!json.wakes && json.wakeReason?.hasPrefix(reason) == true, "\(json)")
        #expect(list.count == 1 && list.allSatisfy { !$0.wakes }, "\(list)")
    }

    @Test func afterPolkitRefusedShowSaysNoAsStatusDoes() throws {
        let session = try TestSession(audio: .none, system: .wake(polkitAllows: false))
        try session.startAgent(launcher: ["/usr/bin/setpriv", "--bounding-set", "-wake_alarm"])
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1h", "--title", "Refused")
        #expect(try session.cliJSON(Shown.self, "show", timer.id).wakes, "before any suspend, nothing says it cannot")
        let inhibitor = ["sleep", "Reveille", "Setting the wake-up time for the next alarm", "delay"]
        _ = try eventually("the sleep inhibitor") { try session.inhibitors() == [inhibitor] ? true : nil }
        try session.prepareForSleep(true)
        _ = try eventually("the inhibitor released") { try session.inhibitors().isEmpty ? true : nil }
        try session.prepareForSleep(false)
        let refused = "at the last suspend, you are not allowed"
        _ = try eventually("status to say the refusal") { try session.cli("status").stdout.contains(refused) ? true : nil }
        let (show, json, _, _) = try said(session, timer.id)
        #expect(show.contains("no; \(refused)"), "\(show)")
        #expect(!json.wakes && json.wakeReason?.hasPrefix(refused) == true, "\(json)")
        let optedOut = try session.cliJSON(AlarmJSON.self, "timer", "2h", "--title", "Opted out", "--no-wake")
        #expect(try session.cli("show", optedOut.id).stdout.contains("no; this alarm does not wake it (--no-wake)"))
    }
}
