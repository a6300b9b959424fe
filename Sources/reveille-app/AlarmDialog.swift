import FoundationEssentials
import ReveilleBus
import ReveilleCalendar
import ReveilleCore
import ReveilleKit

/// The dialog that adds or edits an alarm: time, weekday toggles, title, snooze length, how
/// long it rings unanswered, whether it wakes the computer from suspend.
/// Enter saves (the entries activate Save), Escape or Cancel closes without saving.
@GLibActor
final class AlarmDialog {
    var onSave: (@GLibActor (AlarmRequest) -> Void)?
    var onDelete: (@GLibActor () -> Void)?
    var onClose: (@GLibActor () -> Void)?

    private let ui: UIFile
    private let window: Widget
    private let editing: AlarmRecord?
    private var dayToggles: [(day: Locale.Weekday, toggle: Widget)] = []

    init(_ xml: String, editing record: AlarmRecord?, parent: Widget) throws(UIFile.Failure) {
        ui = try UIFile(xml, name: "alarm-dialog.ui")
        window = ui.widget("dialog")
        editing = record
        window.setTransient(for: parent)
        window.title = record == nil ? L("New Alarm") : L("Edit Alarm")
        let days = ui.widget("days")
        for day in AlarmWords.week {
            let toggle = Widget.toggle(InputParser.shortName(day))
            days.append(toggle)
            dayToggles.append((day, toggle))
        }
        for field in ["hour", "minute"] { ui.widget(field).showsTwoDigits() }
        fill(from: record)
        for field in ["hour", "minute", "snooze", "ring_limit"] { ui.widget(field).activatesDefault() }
        ui.widget("save").onClicked { [weak self] in self?.save() }
        let delete = ui.widget("delete")
        delete.isVisible = record != nil
        delete.onClicked { [weak self] in
            self?.onDelete?()
            self?.window.close()
        }
        window.onCloseRequest { [weak self] in
            self?.onClose?()
            self?.ui.release()
        }
    }

    func present() {
        window.present()
        ui.widget("hour").grabFocus()
    }

    /// The fields as `record` has them; a new alarm starts at the next full hour, once.
    private func fill(from record: AlarmRecord?) {
        var time = Alarm.Schedule.Relative.Time(hour: 7, minute: 0)
        var repeating: [Locale.Weekday] = []
        if case .relative(let relative)? = record?.schedule {
            time = relative.time
            if case .weekly(let days) = relative.repeats { repeating = days }
        }
        ui.widget("hour").number = time.hour
        ui.widget("minute").number = time.minute
        for (day, toggle) in dayToggles { toggle.isOn = repeating.contains(day) }
        ui.widget("title").text = record?.title ?? L("Alarm")
        ui.widget("snooze").number = Int(((record?.countdownDuration?.postAlert ?? 9 * 60) / 60).rounded())
        ui.widget("ring_limit").number = Int(((record?.ring.ringLimit ?? RingOptions.defaultRingLimit) / 60).rounded())
        ui.widget("wakes").isOn = record?.ring.wakesMachine != false
    }

    private func save() {
        let days = dayToggles.filter { $0.toggle.isOn }.map(\.day)
        var repeats: Alarm.Schedule.Relative.Recurrence = days.isEmpty ? .never : .weekly(days)
        // A monthly, yearly or every-few-days alarm (the CLI's) keeps its repeat unless days are chosen.
        if days.isEmpty, case .relative(let relative)? = editing?.schedule {
            switch relative.repeats {
            case .monthly, .yearly, .everyDays: repeats = relative.repeats
            case .never, .weekly: break
            }
        }
        let schedule = Alarm.Schedule.relative(.init(time: .init(hour: ui.widget("hour").number, minute: ui.widget("minute").number),
                                                     repeats: repeats))
        let title = ui.widget("title").editableText.trimmed()
        var request = Self.request(title: title.isEmpty ? L("Alarm") : title, schedule: schedule, preAlert: nil,
                                   snooze: TimeInterval(ui.widget("snooze").number * 60))
        if let editing {
            // What the dialog does not show stays as it was: sound, volume, fade, a pre-alert.
            request.sound = editing.sound
            request.ring = editing.ring
            request.countdownDuration = .init(preAlert: editing.countdownDuration?.preAlert, postAlert: request.countdownDuration?.postAlert)
        }
        // Defaults stay unsaid (nil), as the CLI leaves them, so that a later default applies.
        let limit = TimeInterval(ui.widget("ring_limit").number * 60)
        request.ring.ringLimit = limit == RingOptions.defaultRingLimit ? nil : limit
        request.ring.wakesMachine = ui.widget("wakes").isOn ? nil : false
        onSave?(request)
        window.close()
    }

    /// A request of the person's own, as the CLI makes one: Stop and Snooze, the user's presentation.
    nonisolated static func request(title: String, schedule: Alarm.Schedule?, preAlert: TimeInterval?, snooze: TimeInterval) -> AlarmRequest {
        AlarmRequest(schedule: schedule, countdownDuration: .init(preAlert: preAlert, postAlert: snooze),
                     presentation: .userAlarm(title: title, secondaryButton: .snoozeButton, behavior: .countdown))
    }
}
