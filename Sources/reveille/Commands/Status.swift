import ArgumentParser
import FoundationEssentials
import ReveilleCore
import ReveilleKit
import ReveilleRules
import ReveilleSystem
import ReveilleTimeZone
import ReveilleWords

/// `reveille status`: the next alarm, and whether it will wake the machine from suspend.
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: L("Show the next alarm, whether it will wake the computer from suspend, and how a ringing alarm can be answered here."),
        discussion: L("Where the session may arm a kernel alarm timer (CAP_WAKE_ALARM, which systemd 254 and later give local sessions), the agent wakes the computer itself. Otherwise waking needs the wake helper (installed system-wide), logind, and polkit's io.github.reveille.set-wake-alarm (granted to the active local session). When the next alarm will not wake the computer, this says why."))

    @Flag(help: ArgumentHelp(L("Print the wake status as JSON: wakes, reason, wakeAt, alarmID, lead, mechanism (alarm-timer or wake-helper), answering (how a ringing alarm can be answered here).")))
    var json = false

    func run() async throws {
        let (status, alarms) = try await AgentConnection.perform { client async throws(AlarmError) in
            (try await client.wakeStatus(), try await client.listings())
        }
        if json { return try Output.json(status) }
        let next = Self.nextAlarm(alarms)
        Output.line(next.map { AlarmSummary($0) }.map { L("Next alarm: %@, rings %@", $0.name, $0.when()) } ?? L("Next alarm: none"))
        // As `add`, `edit` and `stop` say it, when the agent rings it on another zone's clock.
        if let next, let warning = AgentZone.warning(for: next, in: GLibTimeZone.local) { Output.note(warning) }
        // `show` and `list` say the same of every alarm while `blocked` (`WakeStatus.answer`).
        if status.wakes, let wakeAt = status.wakeAt {
            let local = AlarmSummary.dateAndTime(ISO8601Local.string(from: wakeAt, in: GLibTimeZone.local))
            Output.line(L("Wakes the computer: yes, at %@ (%@ s early), if it is suspended", local, String(Int(status.lead))))
        } else {
            Output.line(L("Wakes the computer: no; %@", status.reason ?? L("unknown")))
        }
        switch status.mechanism {
        case .alarmTimer?: Output.line(L("Woken by: a kernel alarm timer the agent arms itself (CAP_WAKE_ALARM)"))
        case .wakeHelper?: Output.line(L("Woken by: the wake helper, which sets the RTC wake-up when the computer suspends"))
        case nil: break
        }
        if let answering = status.answering { Output.lines(Self.lines(answering)) }
        if let overLockScreen = Self.lockScreenOverlayLine() { Output.line(overLockScreen) }
    }

    /// Whether the alarm's window shows over this session's lock screen, as `reveille-alert
    /// --lock-screen-overlay` finds the compositor (within 5 s). Left out off Wayland: over an
    /// X11 locker no window shows, and the lines above say what answers there.
    static func lockScreenOverlayLine() -> String? {
        let environment = ProcessInfo.processInfo.environment
        guard environment["WAYLAND_DISPLAY"] != nil else { return nil }
        let alert = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("reveille-alert").path
        guard let pid = try? ProcessSpawn.start([alert, "--lock-screen-overlay"], environment: environment),
              let status = ProcessSpawn.exitStatus(of: pid, within: 5) else {
            return L("Over the lock screen: could not be told (%@ --lock-screen-overlay did not answer)", alert)
        }
        switch LockScreenOverlay(rawValue: status) {
        case .offered?:
            return L("Over the lock screen: the alarm's window shows there, with Stop and Snooze (the compositor lets reveille-alert: kde_lockscreen_overlay_v1)")
        case .notOffered?:
            return L("Over the lock screen: the alarm's window does not show there; this compositor does not let reveille-alert (KWin does for a program that an installed desktop file names, as io.github.reveille.Reveille.Alert.desktop does once Reveille is installed)")
        case .notWayland?:
            return nil
        case nil:
            return L("Over the lock screen: could not be told (%@ --lock-screen-overlay did not answer)", alert)
        }
    }

    /// The alarm that rings first, by time: a running timer or a waiting alarm, switched on. Not
    /// the first listed: the list puts running timers before alarms, and a timer ending after an
    /// alarm had been named as the next one.
    static func nextAlarm(_ alarms: [AlarmListing]) -> AlarmListing? {
        alarms.filter { ($0.state == .scheduled || $0.state == .countdown) && !$0.disabled && $0.fireDate != nil }
            .min { ($0.fireDate!, $0.id.uuidString) < ($1.fireDate!, $1.id.uuidString) }
    }

    /// How a ringing alarm can be answered in this session, and where one would be silent, in words.
    static func lines(_ answering: SessionAnswering) -> [String] {
        var ways: [String] = []
        if answering.notificationButtons {
            ways.append(L("the notification's buttons"))
        } else if answering.notificationShown {
            ways.append(L("the notification, whose buttons do not answer here (it says which commands do)"))
        }
        if answering.alertWindow { ways.append(L("the alert window")) }
        if answering.mediaPlayer {
            ways.append(L("media keys and headset buttons, the lock screen's media controls (GNOME 49 and later, KDE Plasma), playerctl and KDE Connect: a ringing alarm is a media player (Play/Pause snoozes, Next stops)"))
        }
        ways.append(L("reveille stop or reveille snooze in a terminal"))
        var lines = [L("A ringing alarm is answered here by:")] + ways.map { "  - " + $0 }
        if answering.lockers.isEmpty {
            lines.append(L("Screen locker: none found on the session bus (GNOME Shell, KDE, xfce and light-locker are followed); while locked, media keys still answer where the locker lets them through"))
        } else {
            let state = answering.locked ? L("locked now") : L("not locked now")
            lines.append(L("Screen locker: %@ (%@); when the session is unlocked while an alarm rings, its alert is shown afresh", answering.lockers.joined(separator: ", "), state))
        }
        if let holder = answering.mediaPlayerNameHeldBy {
            lines.append(L("Warning: another program, %@, holds the name org.mpris.MediaPlayer2.reveille: media keys, headset buttons and the lock screen's media controls reach it, not a ringing alarm. Close that program, or stop it from taking the name.", holder))
        }
        if let locker = answering.silencingLocker {
            lines.append(L("Warning: %@ switches to another virtual terminal when it locks, and this session then loses its sound device: an alarm that rings while the screen is locked is silent. Use a locker that locks inside the session (your desktop's own, xfce4-screensaver, xsecurelock, swaylock).", locker))
        }
        return lines
    }
}
