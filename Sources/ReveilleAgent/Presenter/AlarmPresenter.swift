import FoundationEssentials
import Logging
import ReveilleBus
import ReveilleCore

/// Shows each alarm that has something to show as one notification slot, updated in place
/// as the alarm moves between countdown, paused and alert; turns its buttons into actions;
/// follows the notification server as it comes, goes and changes capabilities.
@GLibActor
final class AlarmPresenter {
    static let icon = "io.github.reveille.Reveille"
    static let desktopEntry = "io.github.reveille.Reveille"
    static let serverName = "org.freedesktop.Notifications"

    /// One alarm's notification and what it shows.
    private final class Slot {
        var notification: DesktopNotification
        var content: NotificationContent
        var state: Alarm.State
        var actionKeys: [String: NotificationContent.Button] = [:]
        var refresh: UInt32?
        /// A countdown or paused notice the user dismissed stays away until the next change.
        var dismissed = false

        init(notification: DesktopNotification, content: NotificationContent, state: Alarm.State) {
            self.notification = notification
            self.content = content
            self.state = state
        }
    }

    private var slots: [UUID: Slot] = [:]
    /// The alarm with an id, and every alarm, as the scheduler has them now.
    private let alarm: (UUID) -> AlarmRecord?
    private let allAlarms: () -> [AlarmRecord]
    private var missed: [ObjectIdentifier: DesktopNotification] = [:]
    private var capabilities: Set<String> = []
    private var serverPresent = false
    private let logger: Logger
    private let timeZone: () -> any TimeZoneRules
    private let isSounding: (UUID) -> Bool
    /// Called when a button is pressed: the alarm, the action, and the button's role.
    var onAction: (@GLibActor (UUID, AlarmAction, String) -> Void)?

    init(bus: BusConnection, logger: Logger, timeZone: @escaping () -> any TimeZoneRules, isSounding: @escaping (UUID) -> Bool,
         alarm: @escaping (UUID) -> AlarmRecord?, allAlarms: @escaping () -> [AlarmRecord]) {
        self.logger = logger
        self.alarm = alarm
        self.allAlarms = allAlarms
        self.timeZone = timeZone
        self.isSounding = isSounding
        bus.watchName(Self.serverName) { [weak self] owner in self?.serverChanged(owner: owner) }
    }

    /// Makes the notifications follow the alarms' changes.
    func update(_ changes: [AlarmChange]) {
        for change in changes {
            if let record = change.record { present(record) } else { withdraw(change.id) }
        }
    }

    /// Closes every notification, so none is left with buttons nobody answers.
    func withdrawAll() {
        for id in Array(slots.keys) { withdraw(id) }
    }

    /// A persistent notice that an occurrence did not ring, or rang unanswered.
    func showMissed(_ record: AlarmRecord, due: Date, reason: MissReason) {
        let when = ISO8601Local.string(from: due, in: timeZone()).prefix(16).replacing("T", with: " ")
        let text = switch reason {
        case .late: "It was due at \(when) while Reveille could not ring it."
        case .unanswered: "It rang at \(when) and stopped after its ring limit without an answer."
        }
        let notification = DesktopNotification(summary: "Missed: \(NotificationContent.displayable(record.title))",
                                                body: bodyText(text), icon: Self.icon)
        notification.setUrgency(.normal)
        notification.setTimeout(milliseconds: nil)
        notification.setHint("desktop-entry", .string(Self.desktopEntry))
        let key = ObjectIdentifier(notification)
        notification.setActions([(key: "default", label: "Dismiss")])
        notification.onAction = { [weak self] _ in self?.missed.removeValue(forKey: key)?.close() }
        notification.onClosed = { [weak self] _ in self?.missed[key] = nil }
        missed[key] = notification
        show(notification, what: "the missed-alarm notice")
    }

    // MARK: Slots

    private func present(_ record: AlarmRecord) {
        let hasActions = capabilities.contains("actions")
        guard let content = NotificationContent(record, now: Date(), timeZone: timeZone(), hasActions: hasActions) else {
            return withdraw(record.id)
        }
        if let slot = slots[record.id] {
            if slot.state == record.alarm.state && (slot.dismissed || slot.content == content) { return }
            slot.dismissed = false
            fill(slot, with: content, record: record)
        } else {
            let notification = DesktopNotification(summary: content.summary, body: bodyText(content.body), icon: Self.icon)
            let slot = Slot(notification: notification, content: content, state: record.alarm.state)
            slots[record.id] = slot
            wire(slot, id: record.id)
            fill(slot, with: content, record: record)
        }
    }

    /// Updates the slot's notification in place (libnotify sends `replaces_id`) and shows it.
    private func fill(_ slot: Slot, with content: NotificationContent, record: AlarmRecord) {
        let notification = slot.notification
        slot.content = content
        slot.state = record.alarm.state
        notification.update(summary: content.summary, body: bodyText(content.body), icon: Self.icon)
        // First: libnotify keeps the urgency among the hints.
        notification.clearHints()
        notification.setUrgency(content.urgency)
        notification.setTimeout(milliseconds: nil)
        notification.setHint("desktop-entry", .string(Self.desktopEntry))
        notification.setHint("resident", .bool(true))
        if let progress = content.progress { notification.setHint("value", .int32(Int32(progress))) }
        if content.urgency == .critical {
            notification.setHint("category", .string("x-reveille.alarm"))
            // Reveille rings itself; when it cannot, the server may play the theme's alarm sound.
            if isSounding(record.id) {
                notification.setHint("suppress-sound", .bool(true))
            } else {
                notification.setHint("sound-name", .string(SoundLibrary.themeFallback))
            }
        } else {
            notification.setHint("category", .string("x-reveille.countdown"))
            notification.setHint("suppress-sound", .bool(true))
        }
        // With action-icons, a server reads each action key as an icon name.
        let icons = content.buttons.map(\.icon)
        let useIcons = capabilities.contains("action-icons") && Set(icons).count == icons.count
        notification.setHint("action-icons", .bool(useIcons))
        let keyed = content.buttons.map { (key: useIcons ? $0.icon : $0.action.rawValue, button: $0) }
        slot.actionKeys = Dictionary(keyed.map { ($0.key, $0.button) }, uniquingKeysWith: { first, _ in first })
        notification.setActions(keyed.map { (key: $0.key, label: $0.button.label) })
        show(notification, what: "the \(record.alarm.state.rawValue) notification for \(record.id)")
        scheduleRefresh(slot, record: record)
    }

    private func wire(_ slot: Slot, id: UUID) {
        slot.notification.onAction = { [weak self, weak slot] key in
            guard let self, let slot, let button = slot.actionKeys[key] else { return }
            self.onAction?(id, button.action, button.role)
        }
        slot.notification.onClosed = { [weak self, weak slot] reason in
            guard let self, let slot, self.slots[id] === slot else { return }
            guard slot.state == .alerting else {
                slot.dismissed = true
                return
            }
            // An alert needs an answer: dismissed or lost, it comes back.
            self.logger.info("alert for \(id) was closed (reason \(reason)) while still alerting; showing it again")
            MainLoopSources.after(milliseconds: 250) { [weak self] in
                guard let self, let record = self.alarm(id), record.alarm.state == .alerting, self.slots[id] === slot else { return }
                self.renew(id)
            }
        }
    }

    /// Drops the slot's notification (without closing it: it is gone or will be replaced)
    /// and shows a fresh one.
    private func renew(_ id: UUID) {
        if let slot = slots.removeValue(forKey: id) {
            slot.notification.onClosed = nil
            if let refresh = slot.refresh { MainLoopSources.remove(refresh) }
        }
        if let record = alarm(id) { present(record) }
    }

    private func withdraw(_ id: UUID) {
        guard let slot = slots.removeValue(forKey: id) else { return }
        if let refresh = slot.refresh { MainLoopSources.remove(refresh) }
        slot.notification.onClosed = nil
        if serverPresent { slot.notification.close() }
    }

    /// Redraws a countdown at its next minute (or ten-second) boundary.
    private func scheduleRefresh(_ slot: Slot, record: AlarmRecord) {
        if let refresh = slot.refresh { MainLoopSources.remove(refresh) }
        slot.refresh = nil
        guard let wait = NotificationContent.nextRefresh(record, now: Date()) else { return }
        let id = record.id
        slot.refresh = MainLoopSources.after(milliseconds: UInt32(wait * 1000)) { [weak self, weak slot] in
            guard let self, let slot, self.slots[id] === slot else { return }
            slot.refresh = nil
            if let record = self.alarm(id) { self.present(record) }
        }
    }

    // MARK: The server

    private func serverChanged(owner: String?) {
        serverPresent = owner != nil
        guard owner != nil else {
            logger.warning("no notification server on the bus; alarms still ring, and show as soon as one appears")
            return
        }
        capabilities = DesktopNotification.serverCapabilities()
        logger.info("notification server \(owner!) with \(capabilities.sorted().joined(separator: ", "))")
        // A new server knows none of our notifications: show every slot afresh.
        for id in Array(slots.keys) { renew(id) }
        for record in allAlarms() where slots[record.id] == nil { present(record) }
    }

    private func show(_ notification: DesktopNotification, what: String) {
        guard serverPresent else { return }
        do { try notification.show() } catch { logger.error("could not show \(what): \(error)") }
    }

    /// Plain text as the server reads bodies: escaped where it reads markup.
    private func bodyText(_ text: String) -> String {
        guard capabilities.contains("body-markup") else { return text }
        return text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;")
    }
}
