import FoundationEssentials
import ReveilleAgentRuntime
import ReveilleBus
import ReveilleCore
import ReveilleModel
import ReveilleRules
import ReveilleWords

/// What the panel item (a StatusNotifierItem) shows while alarms run: the alarm that matters
/// most (ringing first, then the countdown that ends soonest, then the paused one with least
/// left) as its title and tooltip, and up to `maximumEntries` running alarms in its menu, each
/// with its notification's buttons. Its words are the notifications' (`NotificationContent`),
/// so the panel and the countdown notification never disagree. Pure: built from the alarms,
/// the clock and the zone.
package struct PanelItemView: Equatable {
    /// The item's `Status` property: hosts draw `NeedsAttention` prominently (KDE, waybar).
    package enum Status: String { case active = "Active", needsAttention = "NeedsAttention" }

    /// One running alarm as the panel shows it.
    package struct Entry: Equatable {
        package var id: UUID
        /// The notification's summary (the alarm's title, made displayable).
        package var title: String
        /// The notification's first line: `Rings at 14:32 · 5 min left`, `Paused · 3 min left`.
        package var line: String
        package var ringing: Bool
        /// The notification's buttons, same labels and roles.
        package var buttons: [NotificationContent.Button]
    }

    /// The menu and tooltip name at most this many alarms, so the panel stays readable; the
    /// rest are counted ("and 3 more") and listed by `reveille list`.
    package static let maximumEntries = 5

    /// The running alarms shown, the one that matters most first; never empty.
    package private(set) var entries: [Entry]
    /// Running alarms beyond `maximumEntries`.
    package private(set) var hiddenCount: Int

    /// The view of `records` at `now`; `nil` when none of them runs (nothing to show: the
    /// item goes away).
    package init?(running records: some Sequence<AlarmRecord>, now: Date, timeZone: any TimeZoneRules) {
        let running = records.filter(Self.runs).sorted(by: Self.mattersMore)
        // Rendered only until the menu is full: however many run, an update renders five.
        var entries: [Entry] = []
        var rendered = 0
        for record in running where entries.count < Self.maximumEntries {
            rendered += 1
            guard let content = NotificationContent(record, now: now, timeZone: timeZone) else { continue }
            entries.append(Entry(id: record.id, title: content.summary.isEmpty ? L("Alarm") : content.summary,
                                 line: String(content.body.prefix { $0 != "\n" }), ringing: content.kind == .alert,
                                 buttons: content.buttons))
        }
        guard !entries.isEmpty else { return nil }
        self.entries = entries
        hiddenCount = running.count - rendered
    }

    /// Whether the panel item shows `record`: it rings, counts down or is paused.
    package static func runs(_ record: AlarmRecord) -> Bool { record.state != .scheduled }

    /// Ringing first, then the countdown that ends soonest, then the paused one with least
    /// left; ties by id, so the order never flickers between updates.
    package static func mattersMore(_ a: AlarmRecord, than b: AlarmRecord) -> Bool {
        func key(_ record: AlarmRecord) -> (rank: Int, time: TimeInterval) {
            switch record.phase {
            case .alerting(let since): (0, since.timeIntervalSinceReferenceDate)
            case .countdown(let until, _, _): (1, until.timeIntervalSinceReferenceDate)
            case .paused(let remaining, _): (2, remaining)
            case .scheduled: (3, 0)
            }
        }
        let (ka, kb) = (key(a), key(b))
        if ka.rank != kb.rank { return ka.rank < kb.rank }
        if ka.time != kb.time { return ka.time < kb.time }
        return a.id.uuidString < b.id.uuidString
    }

    /// Whether the button `role` is on `record`'s notification now: a menu click is acted on
    /// only then (a menu opened before the alarm changed may offer what no longer applies).
    package static func offers(_ role: AlarmButtonRole, on record: AlarmRecord, now: Date, timeZone: any TimeZoneRules) -> Bool {
        NotificationContent(record, now: now, timeZone: timeZone)?.buttons.contains { $0.role == role } ?? false
    }

    /// How long after `now` the text of one of the shown countdowns next changes, as the
    /// countdown notification's does; `nil` when none will (nothing counts down): no timer then.
    package static func nextRefresh(_ records: some Sequence<AlarmRecord>, now: Date) -> TimeInterval? {
        records.compactMap { NotificationContent.nextRefresh($0, now: now) }.min()
    }

    package var status: Status { entries[0].ringing ? .needsAttention : .active }

    /// The item's title: the alarm that matters most.
    package var title: String { entries[0].title }

    /// A tooltip's title and text, as hosts are sent them.
    package struct ToolTip: Equatable {
        package var title = ""
        package var text = ""
    }

    /// The first alarm's title and line, then one line per other alarm, then how many more run;
    /// markup-proof (`markupProof`).
    package var toolTip: ToolTip {
        let others = entries.dropFirst().map { $0.title + " · " + $0.line }
        let more = hiddenCount > 0 ? [L("and %@ more", String(hiddenCount))] : []
        return ToolTip(title: Self.markupProof(title), text: Self.markupProof(([entries[0].line] + others + more).joined(separator: "\n")))
    }

    /// Text that reads the same whether a host takes the tooltip as markup or as text: hosts
    /// disagree (KDE Plasma shows it as text unless it finds a tag, then as Qt rich text; Pango
    /// hosts such as waybar and xfce read markup), so no escape shows right everywhere. The
    /// three characters markup gives meaning to become lookalikes: a title cannot add a tag,
    /// an image or a link, nor show as `&lt;`.
    package static func markupProof(_ text: String) -> String {
        text.replacing("&", with: "\u{FF06}").replacing("<", with: "\u{2039}").replacing(">", with: "\u{203A}")
    }

    /// The menu's content (without ids): per alarm its title, then its buttons; a separator
    /// between alarms; then how many more run.
    package var menu: [PanelMenu.Content] {
        var items: [PanelMenu.Content] = []
        for entry in entries {
            if !items.isEmpty { items.append(.separator) }
            items.append(.heading(entry.title))
            items += entry.buttons.compactMap { button in button.role.map { .button(entry.id, $0, label: button.label) } }
        }
        if hiddenCount > 0 { items += [.separator, .heading(L("and %@ more", String(hiddenCount)))] }
        return items
    }
}

/// The panel item's menu as `com.canonical.dbusmenu` serves it: items with ids that are never
/// reused while the agent runs, so a click on a menu built before a change can never reach a
/// button of another alarm or role: its id is simply unknown.
package struct PanelMenu: Equatable {
    /// What an item is.
    package enum Content: Equatable {
        /// A line that names an alarm (not clickable).
        case heading(String)
        /// A button of an alarm's notification.
        case button(UUID, AlarmButtonRole, label: String)
        case separator
    }

    package struct Item: Equatable {
        package var id: Int32
        package var content: Content
    }

    /// The root's children, in order.
    package private(set) var items: [Item]
    /// Changes with each new layout (`LayoutUpdated`, `GetLayout`'s revision).
    package private(set) var revision: UInt32
    /// The id the next new item gets.
    private var nextID: Int32

    /// The empty menu, before anything runs. Id 0 is the root.
    package static let empty = PanelMenu(items: [], revision: 0, nextID: 1)

    /// The menu showing `content`: itself when it shows that already (ids and revision kept),
    /// else a new revision whose items all have new ids.
    package func showing(_ content: [Content]) -> PanelMenu {
        guard items.map(\.content) != content else { return self }
        var next = self.nextID
        let items = content.map { content -> Item in
            defer { next = next == .max ? 1 : next + 1 }
            return Item(id: next, content: content)
        }
        return PanelMenu(items: items, revision: revision &+ 1, nextID: next)
    }

    /// The alarm and button an item id stands for, if it is a button of this menu.
    package func action(for id: Int32) -> (alarm: UUID, role: AlarmButtonRole)? {
        guard let item = items.first(where: { $0.id == id }), case .button(let alarm, let role, _) = item.content else { return nil }
        return (alarm, role)
    }

    /// Whether `id` is the root or an item of this menu.
    package func knows(_ id: Int32) -> Bool { id == 0 || items.contains { $0.id == id } }

    /// The dbusmenu properties of item `id` (0: the root), those named in `names` (all when empty).
    package func properties(of id: Int32, names: [String] = []) -> [String: Variant] {
        var all: [String: Variant]
        if id == 0 {
            all = ["children-display": .string("submenu")]
        } else {
            switch items.first(where: { $0.id == id })?.content {
            case .heading(let text): all = ["label": .string(Self.menuLabel(text)), "enabled": .bool(false)]
            case .button(_, _, let label): all = ["label": .string(Self.menuLabel(label)), "enabled": .bool(true)]
            case .separator: all = ["type": .string("separator")]
            case nil: all = [:]
            }
        }
        return names.isEmpty ? all : all.filter { names.contains($0.key) }
    }

    /// `GetLayout`'s `(ia{sv}av)` for item `id`: the root lists its items when `depth` is not 0.
    package func layout(of id: Int32, depth: Int32, names: [String]) -> Variant {
        let children = id == 0 && depth != 0 ? items.map { Variant.variant(layout(of: $0.id, depth: 0, names: names)) } : []
        return .tuple([.int32(id), .vardict(properties(of: id, names: names)), .array(elementType: "v", children)])
    }

    /// Text as a menu label: dbusmenu reads `_` as the mnemonic mark, so a title's own
    /// underscores are doubled to show as written.
    package static func menuLabel(_ text: String) -> String { text.replacing("_", with: "__") }
}
