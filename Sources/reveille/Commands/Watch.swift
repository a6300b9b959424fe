import ArgumentParser
import FoundationEssentials
import ReveilleCore
import ReveilleKit
import ReveilleRules
import ReveilleTimeZone
import ReveilleWords

/// `reveille watch`: a live view in a terminal; a line (or JSON object) per change otherwise.
struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: L("Watch alarms live; in a terminal, answer them with keys."),
        discussion: L("In a terminal: one row per alarm with its state, and a progress bar and the time left for countdowns, redrawn every second while a countdown runs. Keys: up/down select, s stop, z snooze, p pause, r resume, c cancel (asks y/n), q quit. An alarm that starts ringing takes the selection; s on anything else while one rings asks first (y/n). Ctrl-C, a closed terminal or SIGTERM leave the terminal as it was. When the output is not a terminal, or with --json, prints one line (or JSON object) per change until interrupted."))

    @OptionGroup var output: OutputOptions

    /// One change: `present`, `added`, `changed` or `ended`, and the alarm.
    struct Change: Encodable {
        var change: String
        var alarm: AlarmSummary
    }

    func run() async throws {
        // Fail fast (and start the agent) before waiting on the stream.
        _ = try await AgentConnection.perform { client async throws(AlarmError) in try await client.list() }
        let updates = AgentClient(appID: AgentConnection.appID).updates()
        if Terminal.isInteractive && !output.json {
            try await LiveView().run(updates)
        } else {
            try await printChanges(updates)
        }
    }

    private func printChanges(_ updates: AsyncThrowingStream<[AlarmRecord], any Error>) async throws {
        var previous: [String: AlarmSummary]?
        for try await records in updates {
            let current = Dictionary(AlarmSummary.distinct(records).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            var changes: [Change] = []
            for (id, summary) in current.sorted(by: { $0.key < $1.key }) {
                guard let old = previous?[id] else {
                    changes.append(Change(change: previous == nil ? "present" : "added", alarm: summary))
                    continue
                }
                if old.state != summary.state || old.fireDate != summary.fireDate {
                    changes.append(Change(change: "changed", alarm: summary))
                }
            }
            for (id, summary) in (previous ?? [:]).sorted(by: { $0.key < $1.key }) where current[id] == nil {
                changes.append(Change(change: "ended", alarm: summary))
            }
            previous = current
            for change in changes {
                if output.json {
                    try Output.json(change)
                } else {
                    let state = AlarmSummary.stateWords(change.change == "ended" ? "ended" : change.alarm.state)
                    Output.line("\(ISO8601Local.string(from: Date(), in: GLibTimeZone.local).prefix(19))  \(change.alarm.shortID)  "
                                + "\(state.padded(to: 9))  \(change.alarm.title)")
                }
            }
        }
        throw AlarmError.agentUnavailable(L("lost the session bus"))
    }
}

/// The interactive view: the latest list, the selection, and a one-line status.
private actor LiveView {
    private var records: [AlarmRecord] = []
    /// The selected row, followed by id: the list re-sorts as alarms change state.
    private var selectedID: UUID?
    private var selected: Int {
        get { records.firstIndex { $0.id == selectedID } ?? 0 }
        set { selectedID = records.indices.contains(newValue) ? records[newValue].id : nil }
    }
    private let help = L("s stop · z snooze · p pause · r resume · c cancel · q quit")
    private lazy var status = WatchStatus(help: help)
    /// What a key asked about (`c`, or `s` while another alarm rings); `y` does it, any other key does not.
    private var pending: (action: AlarmAction, record: AlarmRecord)?
    private let terminal = Terminal()

    func run(_ updates: AsyncThrowingStream<[AlarmRecord], any Error>) async throws {
        terminal.enterRawMode()
        defer { terminal.restore() }
        await terminal.handleSignals(onResize: { Task { await self.draw() } })
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask { for try await list in updates { await self.show(list) }; return false }
            group.addTask { for await key in self.terminal.keys() { if await self.press(key) { return true } }; return true }
            group.addTask { while !Task.isCancelled { try await Task.sleep(for: .seconds(1)); await self.tick() }; return false }
            _ = try await group.next()
            group.cancelAll()
        }
    }

    private func show(_ list: [AlarmRecord]) {
        let index = selected
        let wasRinging = Set(records.filter { $0.alarm.state == .alerting }.map(\.id))
        records = list
        status.check(list)
        if let startedRinging = list.first(where: { $0.alarm.state == .alerting && !wasRinging.contains($0.id) }) {
            // What rings takes the selection, so that `s` stops it rather than what was selected.
            selectedID = startedRinging.id
        } else if !list.contains(where: { $0.id == selectedID }) {
            selected = min(index, max(0, list.count - 1))
        }
        draw()
    }

    /// Redraws each second only while a countdown runs; idle otherwise.
    private func tick() {
        if records.contains(where: { $0.alarm.state == .countdown }) { draw() }
    }

    /// Handles a key; returns true to quit.
    private func press(_ key: String) async -> Bool {
        let actions: [String: AlarmAction] = ["s": .stop, "z": .countdown, "p": .pause, "r": .resume]
        if let asked = pending {
            pending = nil
            if key == "y" { await perform(asked.action, on: asked.record) } else { status.say(Self.notDone(asked.action) + " " + help) }
            draw()
            return false
        }
        let ringing = records.first { $0.alarm.state == .alerting }
        switch key {
        case "q", "\u{03}", "\u{04}": return true
        case "up": selected = max(0, selected - 1)
        case "down": selected = min(max(0, records.count - 1), selected + 1)
        case "c" where records.indices.contains(selected):
            pending = (.cancel, records[selected])
            let summary = AlarmSummary(records[selected])
            status.say(summary.kind == "timer" ? L("Cancel timer %@? y/n", summary.name) : L("Cancel alarm %@? y/n", summary.name))
        case "s" where records.indices.contains(selected) && records[selected].alarm.state != .alerting && ringing != nil:
            // Stopping one thing while another rings is likely a slip: say which is which first.
            guard let ringing else { return false }
            pending = (.stop, records[selected])
            status.say(L("%@ is ringing; stop %@ instead? y/n", AlarmSummary(ringing).kindAndName, AlarmSummary(records[selected]).kindAndName))
        default:
            guard let action = actions[key], records.indices.contains(selected) else { return false }
            await perform(action, on: records[selected])
        }
        draw()
        return false
    }

    /// What the status line says when a question is answered with anything but `y`.
    private static func notDone(_ action: AlarmAction) -> String {
        action == .cancel ? L("Not cancelled.") : L("Not stopped.")
    }

    private func perform(_ action: AlarmAction, on record: AlarmRecord) async {
        let id = record.id
        let summary = AlarmSummary(record)
        // A ringing alarm answered here is answered as on its alert, by the button it shows for
        // that action (its Stop, or its second button when that snoozes): the app's intent runs
        // and it hears the press. Otherwise (no such button) the action itself.
        let button = record.alarm.state == .alerting
            ? record.shownButtons.first { AlarmEngine.action(for: $0, of: record) == action } : nil
        do {
            let after = try await AgentConnection.perform { client async throws(AlarmError) in
                if let button { try await client.press(button, on: id) } else { try await client.apply(action, to: id.uuidString) }
            }
            let done: Done = switch action {
            case .stop: .stopped
            case .countdown: .snoozed
            case .pause: .paused
            case .resume: .resumed
            case .cancel: .cancelled
            }
            // Said while it holds: the alarm as this left it (or gone).
            status.say(summary.sentence(done, L("done")) + ". " + help, about: id, state: after?.alarm.state)
        } catch let error as AlarmError {
            status.say(error.reason)
        } catch {
            status.say("\(error)")
        }
    }

    fileprivate func draw() {
        let now = Date()
        var lines = ["Reveille — " + Ln("%@ alarm", "%@ alarms", records.count, String(records.count)), ""]
        if records.isEmpty { lines.append("  " + L("No alarms. Add one with `reveille add 7:30` or `reveille timer 5m`.")) }
        let summaries = AlarmSummary.distinct(records, now: now)
        let rows = records.enumerated().map { index, record -> [String] in
            let summary = summaries[index]
            var next = summary.when(now: now)
            if let length = record.countdownLength, length > 0, let left = summary.timeRemaining {
                let filled = Int(((length - left) / length * 20).rounded()).clamped(0, 20)
                next = "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: 20 - filled) + "] "
                    + L("%@ left", AlarmSummary.length(left))
            }
            return [index == selected ? ">" : " ", summary.shortID, summary.enabled ? AlarmSummary.stateWords(summary.state) : L("off"), next, summary.title]
        }
        // Columns aligned to their widest cell; the title, last, takes what is left.
        lines += Table.lines(rows)
        lines += ["", status.text]
        terminal.draw(lines)
    }
}

/// The live view's status line: what a key did, or a question. What a key did to an alarm is
/// said only while it holds: once the alarm is changed from elsewhere (a timer paused here and
/// resumed by another client, stopped by its alert), the line goes back to the keys' help.
struct WatchStatus {
    let help: String
    private(set) var text: String
    /// The alarm the text speaks of and the state the key left it in (`nil`: it ended).
    private var about: (id: UUID, state: Alarm.State?)?

    init(help: String) {
        self.help = help
        text = help
    }

    /// Says `text`, about `id` left in `state` when it reports what was done.
    mutating func say(_ text: String, about id: UUID? = nil, state: Alarm.State? = nil) {
        self.text = text
        about = id.map { ($0, state) }
    }

    /// The alarms now: a report that no longer holds gives way to the help.
    mutating func check(_ records: [AlarmRecord]) {
        guard let about, records.first(where: { $0.id == about.id })?.alarm.state != about.state else { return }
        say(help)
    }
}

private extension Int {
    func clamped(_ low: Int, _ high: Int) -> Int { Swift.min(Swift.max(self, low), high) }
}
