import Foundation
import FoundationEssentials
import Glibc
@testable import ReveilleAgentRuntime
@testable import ReveilleAlertWindow
import ReveilleCore
import ReveilleModel
import ReveilleRules
import ReveilleSystem
import Testing

/// When alert windows open and close: events in, effects out.
@Suite("Alert window policy")
struct AlertWindowPolicyTests {
    let first = UUID(uuidString: "00000000-0000-4000-8000-000000000001")!
    let second = UUID(uuidString: "00000000-0000-4000-8000-000000000002")!

    @Test func autoOpensOnlyWhileTheNotificationCannotBeAnswered() {
        var policy = AlertWindowPolicy(setting: .auto, hasDisplay: true)
        // Reach not yet known: no window yet.
        #expect(policy.alarmsRinging([first]) == [])
        #expect(policy.reachChanged(.answerable) == [])
        #expect(policy.reachChanged(.seenOnly) == [.open(first)])
        #expect(policy.reachChanged(.unseen) == [])
        #expect(policy.alarmsRinging([first, second]) == [.open(second)])
        // A server with buttons came: the notification answers, the windows close.
        #expect(policy.reachChanged(.answerable) == [.close(first), .close(second)])
    }

    @Test func alwaysOpensForEveryRingingAlarmWhateverTheReach() {
        var policy = AlertWindowPolicy(setting: .always, hasDisplay: true)
        #expect(policy.alarmsRinging([first]) == [.open(first)])
        #expect(policy.reachChanged(.answerable) == [])
        #expect(policy.alarmsRinging([]) == [.close(first)])
    }

    @Test func neverOpensNone() {
        var policy = AlertWindowPolicy(setting: .never, hasDisplay: true)
        #expect(policy.reachChanged(.unseen) == [])
        #expect(policy.alarmsRinging([first, second]) == [])
        #expect(policy.open.isEmpty)
    }

    @Test func theSettingChangedWhileAnAlarmRingsOpensOrClosesItsWindowAtOnce() {
        var policy = AlertWindowPolicy(setting: .auto, hasDisplay: true)
        #expect(policy.reachChanged(.answerable) == [])
        #expect(policy.alarmsRinging([first]) == [], "the notification answers it")
        #expect(policy.settingChanged(.always) == [.open(first)])
        #expect(policy.settingChanged(.never) == [.close(first)])
        #expect(policy.settingChanged(.auto) == [])
        #expect(policy.reachChanged(.unseen) == [.open(first)])
    }

    @Test func answeredAnywhereTheWindowCloses() {
        var policy = AlertWindowPolicy(setting: .auto, hasDisplay: true)
        _ = policy.reachChanged(.unseen)
        #expect(policy.alarmsRinging([first, second]) == [.open(first), .open(second)])
        #expect(policy.alarmsRinging([second]) == [.close(first)])
        #expect(policy.open == [second])
    }

    @Test func aWindowThatEndsOnItsOwnIsNotReopenedUntilTheAlarmRingsAgain() {
        var policy = AlertWindowPolicy(setting: .always, hasDisplay: true)
        #expect(policy.alarmsRinging([first]) == [.open(first)])
        // Crashed, or closed by the person: no loop of windows.
        #expect(policy.windowEnded(first) == [])
        #expect(policy.reachChanged(.unseen) == [])
        #expect(policy.alarmsRinging([first, second]) == [.open(second)])
        // Snoozed, then ringing again: a new ringing, a new window.
        #expect(policy.alarmsRinging([second]) == [])
        #expect(policy.alarmsRinging([first, second]) == [.open(first)])
    }

    @Test func aWindowThatCouldNotConnectIsTriedAgainAFewTimesLaterEachTime() {
        var policy = AlertWindowPolicy(setting: .always, hasDisplay: true)
        #expect(policy.alarmsRinging([first]) == [.open(first)])
        #expect(policy.windowEnded(first, couldNotConnect: true) == [.retry(first, afterSeconds: 1, try: 1)])
        // While it waits, nothing opens it; another alarm gets its own window.
        #expect(policy.alarmsRinging([first, second]) == [.open(second)])
        #expect(policy.reachChanged(.unseen) == [])
        #expect(policy.retryDue(first, try: 1) == [.open(first)])
        #expect(policy.windowEnded(first, couldNotConnect: true) == [.retry(first, afterSeconds: 4, try: 2)])
        #expect(policy.retryDue(first, try: 2) == [.open(first)])
        #expect(policy.windowEnded(first, couldNotConnect: true) == [.retry(first, afterSeconds: 15, try: 3)])
        #expect(policy.retryDue(first, try: 3) == [.open(first)])
        // Its tries spent: not opened again while it rings, and a late try opens nothing.
        #expect(policy.windowEnded(first, couldNotConnect: true) == [])
        #expect(policy.retryDue(first, try: 3) == [])
        #expect(policy.alarmsRinging([first, second]) == [])
        // Ringing anew, it has its tries again; a try asked for in an earlier ringing opens nothing.
        #expect(policy.alarmsRinging([second]) == [])
        #expect(policy.alarmsRinging([first, second]) == [.open(first)])
        #expect(policy.windowEnded(first, couldNotConnect: true) == [.retry(first, afterSeconds: 1, try: 4)])
        #expect(policy.retryDue(first, try: 3) == [], "the 15 s wait of the ringing before")
        // Answered while it waits: its try opens nothing.
        #expect(policy.alarmsRinging([second]) == [])
        #expect(policy.retryDue(first, try: 4) == [])
        // A window that crashed, or that the person closed, is not tried again.
        #expect(policy.windowEnded(second) == [])
        #expect(policy.alarmsRinging([second]) == [])
    }

    @Test func manyAlarmsRingingTogetherOpenAFewWindowsAtATime() {
        var policy = AlertWindowPolicy(setting: .always, hasDisplay: true)
        let ids = (1...50).map { UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", $0))! }
        let opened = policy.alarmsRinging(Set(ids))
        #expect(opened == ids.prefix(AlertWindowPolicy.maximumOpen).map { .open($0) })
        // One answered: the next ringing alarm gets the free window; the others stay as they are.
        #expect(policy.alarmsRinging(Set(ids.dropFirst())) == [.close(ids[0]), .open(ids[AlertWindowPolicy.maximumOpen])])
        #expect(policy.open.count == AlertWindowPolicy.maximumOpen)
        // One closed by the person: the next takes its place.
        #expect(policy.windowEnded(ids[1]) == [.open(ids[AlertWindowPolicy.maximumOpen + 1])])
    }

    @Test func withoutADisplayNoneOpensAndThatIsSaidOnce() {
        var policy = AlertWindowPolicy(setting: .always, hasDisplay: false)
        #expect(policy.alarmsRinging([first]) == [.noDisplay])
        #expect(policy.alarmsRinging([first, second]) == [])
        #expect(policy.open.isEmpty)
    }

    @Test func theArgumentsTheAgentWritesAreWhatTheWindowReads() throws {
        let shown = AlertWindowArguments(alarmID: first, title: "-x --stop", detail: "Alarm · rang at 07:30",
                                         stopLabel: "Stop", secondaryLabel: "Snooze")
        #expect(try AlertWindowArguments(parsing: shown.arguments) == shown)
        var plain = shown
        plain.secondaryLabel = nil
        #expect(try AlertWindowArguments(parsing: plain.arguments) == plain)
    }

    @Test func argumentsTheWindowCannotReadAreRefusedByName() {
        let id = first.uuidString
        #expect(throws: InputError.self) { try AlertWindowArguments(parsing: ["--alarm", id, "--stop", "Stop", "--colour", "red"]) }
        #expect(throws: InputError.self) { try AlertWindowArguments(parsing: ["--alarm", id, "--stop", "Stop", "--stop", "Halt"]) }
        #expect(throws: InputError.self) { try AlertWindowArguments(parsing: ["--alarm", "tomorrow", "--stop", "Stop"]) }
        #expect(throws: InputError.self) { try AlertWindowArguments(parsing: ["--alarm", id, "--stop"]) }
        #expect(throws: InputError.self) { try AlertWindowArguments(parsing: ["--alarm", id]) }
    }

    @Test func theSettingIsReadAndAnUnknownValueIsRefusedByName() throws {
        func decode(_ json: String) throws -> AgentSettings { try AgentSettings(fileText: json) }
        #expect(try decode("{}").alertWindow == .auto)
        #expect(try decode(#"{"alertWindow": "never"}"#).alertWindow == .never)
        #expect(try decode(#"{"alertWindow": "always"}"#).alertWindow == .always)
        do {
            _ = try decode(#"{"alertWindow": "sometimes"}"#)
            Issue.record("alertWindow \"sometimes\" was accepted")
        } catch {
            #expect("\(error)".contains(#"alertWindow is "sometimes"; accepted: "auto", "always", "never""#), "\(error)")
        }
    }

    @Test func onlyLocalDisplaysServedByThisUserQualify() {
        let mine = getuid()
        let served: [SessionDisplay.SocketAddress: uid_t] = [
            .path("/tmp/.X11-unix/X0"): 0, .abstract("/tmp/.X11-unix/X1"): mine, .path("/tmp/.X11-unix/X2"): mine + 1,
            .path("/run/user/1000/wayland-0"): mine, .path("/run/user/1000/wayland-9"): mine + 1,
        ]
        func display(_ environment: [String: String]) -> [String: String] {
            SessionDisplay.of(environment.merging(["XDG_RUNTIME_DIR": "/run/user/1000"]) { $1 }, uid: mine,
                              serverUID: { served[$0] }).environment
        }
        #expect(display(["DISPLAY": ":0"]) == ["DISPLAY": ":0"]) // a display manager's Xorg, run as root
        #expect(display(["DISPLAY": ":1.0"]) == ["DISPLAY": ":1.0"]) // abstract socket only
        #expect(display(["DISPLAY": ":2"]) == [:]) // another user's
        #expect(display(["DISPLAY": ":3"]) == [:]) // nobody listens
        #expect(display(["DISPLAY": "otherhost:0"]) == [:]) // remote
        #expect(display(["DISPLAY": "localhost:10.0"]) == [:]) // ssh -X: TCP, not this session's
        #expect(display(["WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":2"]) == ["WAYLAND_DISPLAY": "wayland-0"])
        #expect(display(["WAYLAND_DISPLAY": "wayland-9"]) == [:])
        #expect(display(["WAYLAND_DISPLAY": "../wayland-0"]) == [:])
    }
}
