import Foundation
import Logging
import ReveilleBus
import ReveilleCore

/// Shows each alerting alarm as a prominent notification and turns its buttons into
/// actions; withdraws it when the alarm leaves `alerting` by any path.
@GLibActor
final class AlertPresenter {
    static let icon = "io.github.reveille.Reveille"
    static let desktopEntry = "io.github.reveille.Reveille"

    private var alerts: [UUID: DesktopNotification] = [:]
    private var missed: [ObjectIdentifier: DesktopNotification] = [:]
    private let logger: Logger
    private let timeZone: () -> TimeZone
    private let isSounding: (UUID) -> Bool
    private lazy var capabilities = DesktopNotification.serverCapabilities()
    /// Called when a button asks for an action on an alarm.
    var onAction: (@GLibActor (UUID, AlarmAction) -> Void)?

    init(logger: Logger, timeZone: @escaping () -> TimeZone, isSounding: @escaping (UUID) -> Bool) {
        self.logger = logger
        self.timeZone = timeZone
        self.isSounding = isSounding
    }

    /// Makes the notifications match the alarms: one alert per alerting alarm.
    func reconcile(_ records: [AlarmRecord]) {
        let alerting = Dictionary(records.filter { $0.alarm.state == .alerting }.map { ($0.id, $0) },
                                  uniquingKeysWith: { first, _ in first })
        for (id, notification) in alerts where alerting[id] == nil {
            alerts[id] = nil
            notification.onClosed = nil
            notification.close()
        }
        for (id, record) in alerting where alerts[id] == nil {
            showAlert(record)
        }
    }

    /// Closes every notification, so none is left with buttons nobody answers.
    func withdrawAll() {
        for notification in alerts.values {
            notification.onClosed = nil
            notification.close()
        }
        alerts = [:]
    }

    /// A persistent notice that an occurrence did not ring.
    func showMissed(_ record: AlarmRecord, due: Date, reason: MissReason) {
        let when = ISO8601Local.string(from: due, in: timeZone()).prefix(16).replacingOccurrences(of: "T", with: " ")
        let text = switch reason {
        case .late: "It was due at \(when) while Reveille could not ring it."
        case .unanswered: "It rang at \(when) and stopped after its ring limit without an answer."
        }
        let notification = DesktopNotification(
            summary: "Missed: \(record.title)",
            body: bodyText(text),
            icon: Self.icon)
        notification.setUrgency(.normal)
        notification.setTimeout(milliseconds: nil)
        notification.setHint("desktop-entry", .string(Self.desktopEntry))
        let key = ObjectIdentifier(notification)
        notification.setActions([(key: "default", label: "Dismiss")])
        notification.onClosed = { [weak self] _ in self?.missed[key] = nil }
        missed[key] = notification
        do { try notification.show() } catch { logger.error("could not show the missed-alarm notice: \(error)") }
    }

    private func showAlert(_ record: AlarmRecord) {
        let alert = record.presentation.alert
        let notification = DesktopNotification(summary: alert.title.isEmpty ? "Alarm" : alert.title,
                                                body: body(for: record), icon: Self.icon)
        notification.setUrgency(.critical)
        notification.setTimeout(milliseconds: nil)
        notification.setHint("resident", .bool(true))
        notification.setHint("desktop-entry", .string(Self.desktopEntry))
        notification.setHint("category", .string("x-reveille.alarm"))
        // Reveille rings itself; when it cannot, the server may play the theme's alarm sound.
        if isSounding(record.id) {
            notification.setHint("suppress-sound", .bool(true))
        } else {
            notification.setHint("sound-name", .string(SoundLibrary.themeFallback))
        }
        var actions = [(key: "stop", label: alert.stopButton.text)]
        if let secondary = alert.secondaryButton { actions.append((key: "secondary", label: secondary.text)) }
        notification.setActions(actions)
        let id = record.id
        notification.onAction = { [weak self] key in
            let action: AlarmAction = key == "secondary" && alert.secondaryButtonBehavior == .countdown ? .countdown : .stop
            self?.onAction?(id, action)
        }
        // A dismissed alert does not stop the alarm: it needs an answer, so it comes back.
        notification.onClosed = { [weak self] reason in
            guard let self, self.alerts[id] === notification else { return }
            self.logger.info("alert for \(id) was closed (reason \(reason)) while still alerting; showing it again")
            self.alerts[id] = nil
            MainLoopSources.after(milliseconds: 250) { [weak self] in
                guard let self, self.alerts[id] == nil else { return }
                self.showAlert(record)
            }
        }
        alerts[id] = notification
        do {
            try notification.show()
        } catch {
            logger.error("could not show the alert for \(id): \(error)")
        }
    }

    private func body(for record: AlarmRecord) -> String {
        let zone = timeZone()
        let kind = record.alarm.schedule == nil ? "Timer" : "Alarm"
        let at = record.alertingSince.map { ISO8601Local.string(from: $0, in: zone).dropFirst(11).prefix(5) } ?? ""
        var text = "\(kind) · rang at \(at)"
        if !capabilities.contains("actions") {
            let short = record.id.uuidString.lowercased().prefix(8)
            text += "\nTo stop: reveille stop \(short)"
            if record.presentation.alert.secondaryButtonBehavior == .countdown {
                text += "\nTo snooze: reveille snooze \(short)"
            }
        }
        return bodyText(text)
    }

    /// Plain text as the server reads bodies: escaped where it reads markup.
    private func bodyText(_ text: String) -> String {
        capabilities.contains("body-markup") ? Self.escapeMarkup(text) : text
    }

    /// Escapes text for servers that read the body as markup.
    static func escapeMarkup(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
