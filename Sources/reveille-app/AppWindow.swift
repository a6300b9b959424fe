import FoundationEssentials
import ReveilleBus
import ReveilleCore
import ReveilleGtk
import ReveilleKit
import ReveilleLoop
import ReveilleModel
import ReveilleRules
import ReveilleWords
import SystemPackage

/// The main window: the agent's alarms as they change (its update subscription), split into
/// what rings now, the person's alarms, apps' alarms (read-only) and timers; every change the
/// person makes goes to the agent, and the list shows it when the agent says it happened. Its
/// other pages: what rang (History) and the agent's settings (`SettingsPage`).
@GLibActor
final class AppWindow {
    /// The app id the agent knows the person's own tools by (the CLI's).
    static let appID = ClientIdentity.userAppID
    /// How many of the history's newest entries the History page shows.
    static let historyShown = 200
    let window: Widget
    private let ui: UIFile
    private let files: UIFiles
    private let client = AgentClient(appID: AppWindow.appID)
    private var records: [AlarmRecord] = []
    /// What each list shows, row by row in order: kept while its element is unchanged, so that
    /// the focus and the scroll stay where they were when another row comes, goes or changes.
    private var shownRows: [String: [ShownRow]] = [:]
    private var ringingID: UUID?
    /// The alarms ringing at the last update: one that starts ringing is announced once.
    private var announcedRinging: Set<UUID> = []
    private var dialog: AlarmDialog?
    /// The Settings page, on the window's stack.
    private let settings: SettingsPage
    /// The lengths of the timers started last, shown beside the presets, and their file.
    private var recent: RecentTimers
    private let recentPath = RecentTimers.path()
    /// The armed redraw (`tick`), replaced when the list changes.
    private var tickSource: UInt32?
    /// How long a toast offers Undo.
    static let toastSeconds: UInt32 = 10

    init(files: UIFiles) throws(UIFile.Failure) {
        self.files = files
        ui = try UIFile(files.window, name: "window.ui")
        window = ui.widget("window")
        settings = SettingsPage(ui, client: client)
        recent = RecentTimers.read(recentPath)
        ui.widget("add_alarm").onClicked { [weak self] in self?.edit(nil) }
        let presets = ui.widget("presets")
        for minutes in RecentTimers.presetMinutes {
            let button = Widget.button(AlarmWords.preset(seconds: TimeInterval(minutes * 60)))
            button.onClicked { [weak self] in self?.startTimer(seconds: TimeInterval(minutes * 60)) }
            presets.append(button)
        }
        showRecent()
        let startTyped: @GLibActor () -> Void = { [weak self] in self?.startTypedTimer() }
        ui.widget("start_timer").onClicked(startTyped)
        ui.widget("timer_length").onActivate(startTyped)
        // Enter in the name goes on to the length, which starts the timer.
        ui.widget("timer_name").onActivate { [ui] in ui.widget("timer_length").grabFocus() }
        ui.widget("ringing_stop").onClicked { [weak self] in self?.answerRinging(.stop) }
        ui.widget("ringing_secondary").onClicked { [weak self] in self?.answerRinging(.secondary) }
        // Read each time the page opens: another tool (`reveille settings`) may have changed them.
        let pages = ui.widget("pages")
        pages.keepsFocusOnShownPage()
        let addAlarm = ui.widget("add_alarm")
        pages.onPageShown { [settings] in
            if pages.shownPage == "settings" { settings.load() }
            // Adding an alarm belongs with the alarms: History and Settings do not offer it.
            addAlarm.isVisible = pages.shownPage == "alarms"
        }
        show([])
    }

    /// Follows the agent: its alarms as they change, its settings for their page, and whether
    /// it runs at all: gone, the window says so in the person's words and its controls wait;
    /// back (started again, by hand or by the session), the window follows it by itself.
    func follow() {
        settings.load()
        // Changed by another tool (`reveille settings`) while the window is open: read again.
        Task { @GLibActor [weak self, client] in
            for await _ in client.settingsChanges() { self?.settings.load() }
        }
        Task { @GLibActor [weak self, client] in
            for await present in client.agentPresence() { self?.agent(present: present) }
        }
        followAlarms()
    }

    /// Whether the alarms are followed now (`updates`, which resubscribes to an agent that
    /// restarts, ends only when the agent could not be reached at all).
    private var following = false
    /// Whether the agent was seen gone since the window last followed it.
    private var agentGone = false

    private func followAlarms() {
        guard !following else { return }
        following = true
        Task { @GLibActor [weak self, client] in
            do {
                for try await records in client.updates() {
                    self?.agent(present: true)
                    self?.show(records)
                    self?.follow(timers: records)
                }
            } catch {
                // The agent's words name bus names and service files: for the log, not the window.
                reveille_app.say("reveille-app: cannot follow the alarm agent: \(error)\n", to: 2)
            }
            self?.following = false
            self?.agent(present: false)
        }
    }

    /// Shows whether the agent runs: gone, a line says so and what acts on alarms waits; back,
    /// the line goes, the alarms are followed again and the settings read again.
    private func agent(present: Bool) {
        guard present == agentGone else { return }
        agentGone = !present
        say(present ? "" : L("The alarm service is not running: alarms do not ring until it starts again."))
        for id in ["add_alarm", "alarms", "app_alarms", "timers", "presets", "recent_presets", "timer_name", "timer_length", "start_timer"] {
            ui.widget(id).isSensitive = present
        }
        if present {
            followAlarms()
            settings.load()
        }
    }

    // MARK: Showing

    /// `anew`: every row made anew, not only the changed ones (see `fill`).
    private func show(_ records: [AlarmRecord], anew: Bool = false) {
        self.records = records.sorted { ($0.fireDate ?? .distantFuture, $0.title) < ($1.fireDate ?? .distantFuture, $1.title) }
        let mine = self.records.filter { $0.appID == Self.appID }
        let theirs = self.records.filter { $0.appID != Self.appID }
        fill("alarms", with: mine.filter { $0.schedule != nil }, anew: anew, id: \.id, row: alarmRow)
        fill("app_alarms", with: theirs, anew: anew, id: \.id, row: appAlarmRow)
        fill("timers", with: mine.filter { $0.schedule == nil }, anew: anew, id: \.id, row: timerRow)
        ui.widget("no_alarms").isVisible = !mine.contains { $0.schedule != nil }
        ui.widget("app_alarms_heading").isVisible = !theirs.isEmpty
        ui.widget("app_alarms").isVisible = !theirs.isEmpty
        showRinging(self.records.first { $0.state == .alerting })
        announceNewlyRinging()
        tick()
        // What rang, was answered or missed changes with the list: read it again.
        showHistory()
    }

    private func showHistory() {
        Task { @GLibActor [weak self, client] in
            guard let entries = try? await client.run({ client async throws(AlarmError) in try await client.history() }), let self else { return }
            let shown = Array(entries.prefix(Self.historyShown))
            self.ui.widget("no_history").isVisible = shown.isEmpty
            self.fill("history", with: shown, id: { $0 }) { [files = self.files] entry throws(UIFile.Failure) in
                let row = try UIFile(files.historyRow, name: "history-row.ui")
                row.widget("title").text = entry.title
                row.widget("row").nameForScreenReaders(entry.title)
                row.widget("detail").text = AlarmWords.history(entry)
                return MadeRow(file: row)
            }
        }
    }

    /// One row of a list: the element it was made from (its identity and its whole value), its
    /// widget, and what redraws the parts of it that change with time (`tick`).
    private struct ShownRow {
        var id: AnyHashable
        var element: AnyHashable
        var widget: Widget
        var live: (@GLibActor (Date) -> Void)?
    }

    /// A row as a row factory makes it: its UI file and what redraws it with time.
    private struct MadeRow {
        var file: UIFile
        var live: (@GLibActor (Date) -> Void)? = nil
    }

    /// Shows one row per element in `list`, in place: a row whose element is unchanged is kept
    /// (the focus on it or in it stays), a changed one made anew where it was, a gone one
    /// removed, a new one inserted where it belongs.
    /// `anew`: every row made anew (after a refusal, a switch the person flipped shows the
    /// agent's state again).
    private func fill<Element: Hashable>(_ list: String, with elements: [Element], anew: Bool = false, id: (Element) -> AnyHashable,
                                         row: (Element) throws(UIFile.Failure) -> MadeRow) {
        let box = ui.widget(list)
        box.isVisible = !elements.isEmpty
        let wanted = Dictionary(elements.map { (id($0), AnyHashable($0)) }, uniquingKeysWith: { first, _ in first })
        var kept: [AnyHashable: ShownRow] = [:]
        // A changed row is made anew: the focus that was in it goes to the same place in the new one.
        var focused: (id: AnyHashable, path: [Int])?
        for shown in shownRows[list] ?? [] {
            if wanted[shown.id] == shown.element, kept[shown.id] == nil, !anew {
                kept[shown.id] = shown
            } else {
                if let path = shown.widget.focusPath { focused = (shown.id, path) }
                box.remove(shown.widget)
            }
        }
        var rows: [ShownRow] = []
        for element in elements {
            let key = id(element)
            if var shown = kept.removeValue(forKey: key) {
                // Unchanged rows keep their order among themselves (the list's order is the
                // elements'); one out of place is moved, the only case where it leaves and returns.
                if box.rowIndex(of: shown.widget) != rows.count {
                    box.remove(shown.widget)
                    box.insert(shown.widget, at: rows.count)
                    shown.live?(Date())
                }
                rows.append(shown)
                continue
            }
            do {
                let made = try row(element)
                let widget = made.file.widget("row")
                box.insert(widget, at: rows.count)
                // The list holds the row now; before, only the builder did.
                made.file.release()
                rows.append(ShownRow(id: key, element: AnyHashable(element), widget: widget, live: made.live))
                if let focused, focused.id == key { widget.focus(path: focused.path) }
            } catch {
                say(error.description)
            }
        }
        for (_, left) in kept { box.remove(left.widget) }
        shownRows[list] = rows
    }

    private func alarmRow(_ record: AlarmRecord) throws(UIFile.Failure) -> MadeRow {
        let row = try UIFile(files.alarmRow, name: "alarm-row.ui")
        let live = fillAlarm(row, record)
        let enabled = row.widget("enabled")
        enabled.isOn = !record.disabled
        enabled.onToggled { [weak self] on in self?.setEnabled(on, record) }
        let edit = row.widget("edit")
        edit.nameForScreenReaders(L("Edit %@", record.title))
        edit.onClicked { [weak self] in self?.edit(record) }
        let skip = row.widget("skip")
        // Only a repeating alarm waiting for its time has a next ring to skip (not a snoozed one).
        skip.isVisible = AlarmWords.repeats(record.schedule) && !record.disabled && record.state == .scheduled
        if record.skippedOccurrence(now: Date()) == nil {
            skip.text = L("S_kip Next")
            skip.nameForScreenReaders(L("Skip the next ring of %@", record.title))
            skip.onClicked { [weak self] in
                self?.send(failing: L("The next ring of “%@” could not be skipped", record.title)) { client async throws(AlarmError) in
                    _ = try await client.skip(record.id.uuidString)
                }
            }
        } else {
            skip.text = L("U_nskip")
            skip.nameForScreenReaders(L("Unskip %@", record.title))
            skip.onClicked { [weak self] in
                self?.send(failing: L("The skipped ring of “%@” could not be brought back", record.title)) { client async throws(AlarmError) in
                    _ = try await client.unskip(record.id.uuidString)
                }
            }
        }
        return MadeRow(file: row, live: live)
    }

    /// An app's alarm or timer: shown, not changed here (the app owns it).
    private func appAlarmRow(_ record: AlarmRecord) throws(UIFile.Failure) -> MadeRow {
        let row = try UIFile(files.alarmRow, name: "alarm-row.ui")
        let live = fillAlarm(row, record, app: record.appID)
        row.widget("actions").isVisible = false
        let enabled = row.widget("enabled")
        enabled.isOn = !record.disabled
        enabled.isSensitive = false
        return MadeRow(file: row, live: live)
    }

    /// Fills an alarm's row; returns what redraws its time-dependent words.
    private func fillAlarm(_ row: UIFile, _ record: AlarmRecord, app: String? = nil) -> @GLibActor (Date) -> Void {
        // A screen reader says the row by its title, not as an empty list item.
        row.widget("row").nameForScreenReaders(record.title)
        row.widget("time").text = AlarmWords.time(record)
        row.widget("title").text = app.map { "\(record.title) · \($0)" } ?? record.title
        let detail = row.widget("detail"), time = row.widget("time")
        let live: @GLibActor (Date) -> Void = { now in
            let repeats = record.schedule == nil ? L("Timer") : AlarmWords.repeats(record)
            detail.text = "\(repeats) · \(AlarmWords.next(record, now: now))"
            // An app's timer shows its countdown where an alarm shows its time.
            if record.schedule == nil { time.text = AlarmWords.countdown(AlarmWords.remaining(record, now: now).seconds) }
        }
        live(Date())
        return live
    }

    private func timerRow(_ record: AlarmRecord) throws(UIFile.Failure) -> MadeRow {
        let row = try UIFile(files.timerRow, name: "timer-row.ui")
        row.widget("title").text = record.title
        row.widget("row").nameForScreenReaders(record.title)
        let remaining = row.widget("remaining"), progress = row.widget("progress")
        let live: @GLibActor (Date) -> Void = { now in
            let (seconds, done) = AlarmWords.remaining(record, now: now)
            remaining.text = record.state == .alerting ? L("Ringing") : AlarmWords.countdown(seconds)
            progress.fraction = done
        }
        live(Date())
        let pause = row.widget("pause")
        switch record.state {
        case .countdown:
            pause.text = L("_Pause")
            pause.nameForScreenReaders(L("Pause %@", record.title))
            pause.onClicked { [weak self] in self?.perform(.pause, record) }
        case .paused:
            pause.text = L("_Resume")
            pause.nameForScreenReaders(L("Resume %@", record.title))
            pause.onClicked { [weak self] in self?.perform(.resume, record) }
        case .scheduled, .alerting:
            pause.isVisible = false
        }
        let cancel = row.widget("cancel")
        cancel.nameForScreenReaders(record.state == .alerting ? L("Stop %@", record.title) : L("Cancel %@", record.title))
        cancel.onClicked { [weak self] in self?.perform(record.state == .alerting ? .stop : .cancel, record) }
        return MadeRow(file: row, live: live)
    }

    private func showRinging(_ record: AlarmRecord?) {
        ringingID = record?.id
        ui.widget("ringing").isVisible = record != nil
        guard let record else { return }
        ui.widget("ringing_title").text = record.title
        ui.widget("ringing_detail").text = AlarmWords.ringing(record)
        ui.widget("ringing_stop").nameForScreenReaders(L("Stop %@", record.title))
        let secondary = ui.widget("ringing_secondary")
        let label = record.presentation.alert.secondaryButton?.text.defaultValue
        secondary.isVisible = label != nil
        if let label {
            secondary.text = label
            // "Snooze Tea": the button's own word, then what it acts on.
            secondary.nameForScreenReaders(L("%@ %@", label, record.title))
        }
    }

    /// Has screen readers say each alarm that began ringing since the last update, by its
    /// title (the ringing area above the lists shows the first; a notification says it too).
    private func announceNewlyRinging() {
        let ringing = records.filter { $0.state == .alerting }
        for record in ringing where !announcedRinging.contains(record.id) {
            window.announce(L("%@ is ringing", record.title))
        }
        announcedRinging = Set(ringing.map(\.id))
    }

    /// Redraws what changes with time, and arms the next redraw: every half second while a
    /// countdown runs, else at the next minute ("Rings in" counts minutes), so that a window
    /// with nothing counting wakes the process once a minute, not twice a second.
    private func tick() {
        refresh()
        if let tickSource { MainLoopSources.remove(tickSource) }
        let counting = records.contains { $0.state == .countdown }
        let intoMinute = Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 60)
        let wait = counting ? 500 : UInt32((60 - intoMinute) * 1000) + 20
        tickSource = MainLoopSources.after(milliseconds: wait) { [weak self] in
            self?.tickSource = nil
            self?.tick()
        }
    }

    private func refresh() {
        let now = Date()
        for rows in shownRows.values { for row in rows { row.live?(now) } }
    }

    private func say(_ text: String) {
        let status = ui.widget("status")
        status.text = text
        status.isVisible = !text.isEmpty
    }

    /// A toast at the bottom, with Undo when `undo` is given, for a while (`toastSeconds`).
    private func showToast(_ text: String, undo: (@GLibActor () -> Void)?) {
        Adwaita.toast(text, in: ui.widget("toasts"), seconds: Self.toastSeconds, button: undo == nil ? nil : L("_Undo"),
                      dismiss: L("Dismiss"), action: undo)
    }

    // MARK: Changing

    /// Runs `request` on the agent, off the loop (the client's calls are awaited, their replies
    /// arrive on the client's own thread, so the window never waits for the agent); what it changed
    /// arrives through the updates. A refusal is said for a while in the person's words,
    /// `failing` (the agent's own, which name ids and states, go to standard error), and what
    /// the person flipped shows the agent's state again.
    private func send(failing: String, _ request: @escaping @Sendable @ClientCallActor (AgentClient) async throws(AlarmError) -> Void,
                      then done: (@GLibActor () -> Void)? = nil) {
        Task { @GLibActor [weak self, client] in
            do throws(AlarmError) {
                try await client.run(request)
                self?.say("")
                done?()
            } catch {
                guard let self else { return }
                reveille_app.say("reveille-app: \(failing): \(error.reason)\n", to: 2)
                if case .agentUnavailable = error { self.agent(present: false) } else { self.showToast(failing, undo: nil) }
                self.show(self.records, anew: true)
            }
        }
    }

    /// Removes `record`, offering Undo: the agent schedules it again as it stood (`Restore`:
    /// its id, a snooze still ahead, a skip, off if it was).
    private func delete(_ record: AlarmRecord) {
        send(failing: L("“%@” could not be deleted", record.title), { client async throws(AlarmError) in
            _ = try await client.apply(.cancel, to: record.id.uuidString)
        }) { [weak self] in
            self?.showToast(L("Deleted “%@”", record.title)) { [weak self] in
                self?.send(failing: L("“%@” could not be brought back", record.title)) { client async throws(AlarmError) in
                    _ = try await client.restore(record)
                }
            }
        }
    }

    private func setEnabled(_ on: Bool, _ record: AlarmRecord) {
        let failing = on ? L("“%@” could not be turned on", record.title) : L("“%@” could not be turned off", record.title)
        send(failing: failing) { client async throws(AlarmError) in _ = try await client.setEnabled(on, record.id.uuidString) }
    }

    private func perform(_ action: AlarmAction, _ record: AlarmRecord) {
        let failing = switch action {
        case .pause: L("“%@” could not be paused", record.title)
        case .resume: L("“%@” could not be resumed", record.title)
        case .stop: L("“%@” could not be stopped", record.title)
        case .cancel, .countdown: L("“%@” could not be cancelled", record.title)
        }
        send(failing: failing) { client async throws(AlarmError) in _ = try await client.apply(action, to: record.id.uuidString) }
    }

    /// Starts a timer of `seconds`, named as the name field says (then emptied), else by its length.
    private func startTimer(seconds: TimeInterval) {
        let nameField = ui.widget("timer_name")
        let name = nameField.editableText.trimmed()
        nameField.text = ""
        let title = name.isEmpty ? L("%@ timer", AlarmWords.preset(seconds: seconds)) : name
        let request = AlarmDialog.request(title: title, schedule: nil,
                                          preAlert: seconds, snooze: settings.newAlarmDefaults.snooze)
        send(failing: L("The timer could not be started")) { client async throws(AlarmError) in _ = try await client.schedule(id: UUID(), request: request) }
    }

    /// Starts a timer of the length typed beside the presets, read as `reveille timer` reads one.
    private func startTypedTimer() {
        let field = ui.widget("timer_length"), problem = ui.widget("timer_problem")
        do {
            let seconds = try FieldInput.timerLength(field.editableText.trimmed(), field: L("Timer length"))
            problem.isVisible = false
            field.text = ""
            startTimer(seconds: seconds)
        } catch {
            problem.text = error.description
            problem.isVisible = true
        }
    }

    /// Takes the lengths of the timers started since the last list among the recent ones.
    private func follow(timers records: [AlarmRecord]) {
        guard recent.follow(records) else { return }
        showRecent()
        // Kept for the next window; one that cannot be kept is still offered in this one.
        do { try recent.write(recentPath) } catch { say(L("Cannot keep the recent timers in %@: %@", recentPath.string, "\(error)")) }
    }

    /// The recent lengths' buttons, after the fixed presets.
    private func showRecent() {
        let box = ui.widget("recent_presets")
        box.removeAll(keepingFirst: 1)
        for seconds in recent.lengths {
            let button = Widget.button(AlarmWords.preset(seconds: seconds))
            button.onClicked { [weak self] in self?.startTimer(seconds: seconds) }
            box.append(button)
        }
        box.isVisible = !recent.lengths.isEmpty
    }

    /// Stop or the second button on what rings: pressed as on its notification, so an app's
    /// intent runs and the app hears the press.
    private func answerRinging(_ button: AlarmButtonRole) {
        guard let id = ringingID else { return }
        let title = records.first { $0.id == id }?.title ?? ""
        send(failing: L("“%@” could not be answered", title)) { client async throws(AlarmError) in _ = try await client.press(button, on: id) }
    }

    /// Opens the dialog for `record`, or for a new alarm.
    private func edit(_ record: AlarmRecord?) {
        do {
            let dialog = try AlarmDialog(files.alarmDialog, editing: record, defaults: settings.newAlarmDefaults, parent: window, client: client)
            dialog.onSave = { [client] request throws(AlarmError) in
                _ = try await client.run { client async throws(AlarmError) in
                    if let record { try await client.update(record.id.uuidString, request: request) }
                    else { try await client.schedule(id: UUID(), request: request) }
                }
            }
            dialog.onDelete = { [weak self] in
                guard let record else { return }
                self?.delete(record)
            }
            dialog.onClose = { [weak self] in self?.dialog = nil }
            self.dialog = dialog
            dialog.present()
        } catch {
            say(error.description)
        }
    }
}
