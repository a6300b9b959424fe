import FoundationEssentials
import ReveilleBus
import ReveilleCalendar
import ReveilleCore
import ReveilleGtk
import ReveilleKit
import ReveilleLoop
import ReveilleRules
import ReveilleTimeZone
import ReveilleWords

/// The dialog that adds or edits an alarm: time, how it repeats (weekdays, monthly, yearly,
/// every few days), title, sound with a preview, volume, fade-in, snooze length, how long it
/// rings unanswered, whether it wakes the computer from suspend. The fields are read as the
/// CLI reads its options (`AlarmForm`); a refusal, the form's or the agent's, is said in the
/// dialog, which stays open with what was typed. Enter saves, Escape or Cancel closes.
@GLibActor
final class AlarmDialog {
    /// Sends the request to the agent; the dialog closes when it is accepted.
    var onSave: (@GLibActor (AlarmRequest) async throws(AlarmError) -> Void)?
    var onDelete: (@GLibActor () -> Void)?
    var onClose: (@GLibActor () -> Void)?

    /// How long the preview plays.
    nonisolated static let previewSeconds = 10.0
    /// The repeat toggles' ids and the stack pages they show.
    private static let kinds: [(id: String, kind: AlarmForm.Repeat)] = [("weekly", .weekly), ("monthly", .monthly), ("yearly", .yearly), ("every", .everyDays)]

    /// The widget of each field a refusal names.
    private static var fieldIDs: [String: String] {
        [AlarmForm.Field.time: "hour", AlarmForm.Field.monthDay: "month_day", AlarmForm.Field.yearDay: "year_day",
         AlarmForm.Field.everyDays: "every_days", AlarmForm.Field.volume: "volume", AlarmForm.Field.fadeIn: "fade",
         AlarmForm.Field.snooze: "snooze", AlarmForm.Field.ringLimit: "ring_limit",
         AlarmForm.Field.ringAgain: "ring_again"]
    }

    private let ui: UIFile
    private let window: Widget
    private let editing: AlarmRecord?
    private let client: AgentClient
    /// The fields as the dialog opened: only what differs from them is changed.
    private let initial: AlarmForm
    /// What the agent gives a new alarm that leaves it out, as the dialog opened.
    private let defaults: NewAlarmDefaults
    private var dayToggles: [(day: Locale.Weekday, toggle: Widget)] = []
    /// The sound list's rows: a sound's name, `nil` for the default.
    private var soundRows: [String?] = []
    /// Whether the window is still there: answers that come later (a save, the sound list, a
    /// preview's end) touch its widgets only then.
    private var isOpen = true
    /// The preview that plays now, if one does, and the call that started it.
    private var previewPlaying: UUID?
    private var previewCall: Task<Void, Never>?

    init(_ xml: String, editing record: AlarmRecord?, defaults: NewAlarmDefaults, parent: Widget, client: AgentClient) throws(UIFile.Failure) {
        ui = try UIFile(xml, name: "alarm-dialog.ui")
        window = ui.widget("dialog")
        editing = record
        self.client = client
        let today = CivilDate(containing: Date(), in: GLibTimeZone.local)
        let day = CalendarDay(year: today.year, month: today.month, day: today.day)
        self.defaults = defaults
        initial = record.map { AlarmForm($0, today: day) } ?? AlarmForm(today: day, defaults: defaults)
        window.setTransient(for: parent)
        window.title = record == nil ? L("New Alarm") : L("Edit Alarm")
        let days = ui.widget("days")
        for day in AlarmWords.week {
            let toggle = Widget.toggle(InputParser.shortName(day))
            days.append(toggle)
            dayToggles.append((day, toggle))
        }
        for field in ["hour", "minute"] { ui.widget(field).showsTwoDigits() }
        for (id, _) in Self.kinds {
            ui.widget(id).onToggled { [weak self] on in if on { self?.ui.widget("repeat_details").showPage(id) } }
        }
        // Chosen by Enter, Space or a click on a row; the focus passing through chooses nothing.
        ui.widget("sounds").makeChoiceList { _ in }
        showSounds([], keeping: initial.sound)
        fill(initial)
        for field in ["hour", "minute", "month_day", "year_month", "year_day", "every_days", "volume", "fade", "snooze", "ring_limit"] {
            ui.widget(field).activatesDefault()
        }
        ui.widget("save").onClicked { [weak self] in self?.save() }
        ui.widget("preview").onClicked { [weak self] in self?.preview() }
        let delete = ui.widget("delete")
        delete.isVisible = record != nil
        delete.onClicked { [weak self] in
            self?.onDelete?()
            self?.window.close()
        }
        window.onCloseRequest { [weak self] in
            self?.stopPreview()
            self?.isOpen = false
            self?.onClose?()
            self?.ui.release()
        }
        loadSounds()
    }

    func present() {
        // Within the screen, with room for the header and a panel: the rest scrolls.
        if let (width, height) = Widget.screenSize {
            let scroller = ui.widget("scroller")
            scroller.maxContentHeight = max(200, height - 160)
            scroller.maxContentWidth = max(300, width - 40)
        }
        window.present()
        ui.widget("hour").grabFocus()
    }

    private func fill(_ form: AlarmForm) {
        ui.widget("hour").number = form.hour
        ui.widget("minute").number = form.minute
        for (id, kind) in Self.kinds where kind == form.repeats { ui.widget(id).isOn = true }
        ui.widget("repeat_details").showPage(Self.kinds.first { $0.kind == form.repeats }?.id ?? "weekly")
        for (day, toggle) in dayToggles { toggle.isOn = form.days.contains(day) }
        ui.widget("month_day").number = form.monthDay
        ui.widget("year_month").number = form.yearMonth
        ui.widget("year_day").number = form.yearDay
        ui.widget("every_days").number = form.everyDays
        ui.widget("title").text = form.title
        ui.widget("volume").number = form.volume
        ui.widget("fade").text = form.fadeIn
        ui.widget("snooze").text = form.snooze
        ui.widget("ring_limit").text = form.ringLimit
        ui.widget("ring_again").text = form.ringAgain
        ui.widget("wakes").isOn = form.wakes
    }

    /// The fields as they are now.
    private var form: AlarmForm {
        var form = initial
        form.hour = ui.widget("hour").number
        form.minute = ui.widget("minute").number
        form.repeats = Self.kinds.first { ui.widget($0.id).isOn }?.kind ?? .weekly
        form.days = dayToggles.filter { $0.toggle.isOn }.map(\.day)
        form.monthDay = ui.widget("month_day").number
        form.yearMonth = ui.widget("year_month").number
        form.yearDay = ui.widget("year_day").number
        form.everyDays = ui.widget("every_days").number
        form.title = ui.widget("title").editableText
        form.sound = selectedSound
        form.volume = ui.widget("volume").number
        form.fadeIn = ui.widget("fade").editableText
        form.snooze = ui.widget("snooze").editableText
        form.ringLimit = ui.widget("ring_limit").editableText
        form.ringAgain = ui.widget("ring_again").editableText
        form.wakes = ui.widget("wakes").isOn
        return form
    }

    private func save() {
        let original = editing.map(AlarmRequest.init)
        let request: AlarmRequest
        do {
            request = try form.request(changing: original, from: initial, now: Date(), timeZone: GLibTimeZone.local)
        } catch {
            complain(error.description)
            // Taken to the field, whose name a screen reader says, to type it anew.
            if let id = Self.fieldIDs[error.field] { ui.widget(id).grabFocus() }
            return
        }
        // Nothing changed: nothing is sent (an update would be a change in the history and the sync).
        guard request != original else { return window.close() }
        do {
            // As the agent will take it: a new alarm with what it leaves out given the defaults.
            let made = editing == nil ? defaults.filling(request, appID: ClientIdentity.userAppID) : request
            try made.validate(now: Date(), timeZone: GLibTimeZone.local)
        } catch {
            return complain(error.reason)
        }
        let save = ui.widget("save")
        save.isSensitive = false
        Task { @GLibActor [weak self] in
            do {
                try await self?.onSave?(request)
                if self?.isOpen == true { self?.window.close() }
            } catch {
                guard let self, self.isOpen else { return }
                self.complain(Self.words(error))
                save.isSensitive = true
            }
        }
    }

    /// A refusal as the dialog says it; the agent not running in words (its own reason names
    /// bus names and service files).
    private static func words(_ error: any Error) -> String {
        if case .agentUnavailable? = error as? AlarmError {
            return L("The alarm service is not running: alarms do not ring until it starts again.")
        }
        return "\(error)"
    }

    /// Says in the dialog why it was not saved (or the sound not played).
    private func complain(_ text: String) {
        let problem = ui.widget("problem")
        problem.text = text
        problem.isVisible = true
    }

    // MARK: Sound

    private var selectedSound: String? {
        ui.widget("sounds").chosenRow.flatMap { soundRows.indices.contains($0) ? soundRows[$0] : nil }
    }

    /// Lists the agent's sounds (alarm-like ones first), and `keeping`, the one chosen, if the
    /// agent does not name it (a file the CLI gave).
    private func showSounds(_ entries: [SoundEntry], keeping chosen: String?) {
        let names = entries.filter(\.suitedForAlarms).map(\.name) + entries.filter { !$0.suitedForAlarms }.map(\.name)
        soundRows = [nil] + names + (chosen.map { names.contains($0) ? [] : [$0] } ?? [])
        let list = ui.widget("sounds")
        list.removeAll()
        // Reveille's own and the person's sounds first (the agent lists them so), then the theme's
        // alarm-like ones, then its others, each by a name people read, in their language.
        for row in soundRows { list.appendChoice(row.map(SoundNames.readable) ?? L("Reveille’s alarm (default)")) }
        list.chooseRow(soundRows.firstIndex(of: chosen) ?? 0)
    }

    private func loadSounds() {
        Task { @GLibActor [weak self, client] in
            do {
                let entries = try await client.run { client async throws(AlarmError) in try await client.sounds() }
                guard let self, self.isOpen else { return }
                self.showSounds(entries, keeping: self.selectedSound)
            } catch {
                guard let self, self.isOpen else { return }
                self.complain("\(L("Sound")): \(Self.words(error))")
            }
        }
    }

    /// Has the agent play the chosen sound for a few seconds at the volume the field shows
    /// (one preview at a time). The button is pressed while it plays (a screen reader says so);
    /// pressed again it stops the preview, as closing the dialog does.
    private func preview() {
        guard previewPlaying == nil else { return stopPreview() }
        let name = selectedSound ?? "default"
        let volume = VolumeScale.linear(slider: Double(min(100, max(10, ui.widget("volume").number))) / 100)
        let playing = UUID()
        previewPlaying = playing
        ui.widget("preview").isOn = true
        let before = previewCall
        previewCall = Task { @GLibActor [weak self, client] in
            // After the calls before it: a stop sent just before must not stop this one.
            await before?.value
            do {
                _ = try await client.run { client async throws(AlarmError) in try await client.previewSound(name, seconds: Self.previewSeconds, volume: volume) }
                MainLoopSources.after(milliseconds: UInt32(Self.previewSeconds * 1000)) { [weak self] in
                    guard let self, self.previewPlaying == playing else { return }
                    self.previewEnded()
                }
            } catch {
                guard let self, self.previewPlaying == playing else { return }
                self.previewEnded()
                self.complain("\(L("Sound")): \(Self.words(error))")
            }
        }
    }

    /// Stops the preview that plays, if one does. The preview calls go one after another, in
    /// the person's order: a stop cannot overtake the play before it, nor a play the stop.
    private func stopPreview() {
        guard previewPlaying != nil else { return }
        previewEnded()
        let before = previewCall
        previewCall = Task { @GLibActor [client] in
            await before?.value
            _ = try? await client.run { client async throws(AlarmError) in try await client.stopPreview() }
        }
    }

    private func previewEnded() {
        previewPlaying = nil
        if isOpen { ui.widget("preview").isOn = false }
    }

    /// A request of the person's own, as the CLI makes one: Stop and Snooze, the user's presentation.
    /// `snooze` `nil`: the agent gives the person's default snooze length.
    nonisolated static func request(title: String, schedule: Alarm.Schedule?, preAlert: TimeInterval?, snooze: TimeInterval?) -> AlarmRequest {
        AlarmRequest(schedule: schedule, countdownDuration: .init(preAlert: preAlert, postAlert: snooze),
                     presentation: .userAlarm(title: title, secondaryButton: .snoozeButton, behavior: .countdown))
    }
}
