import FoundationEssentials
import ReveilleBus
import ReveilleCore
import ReveilleModel
import ReveilleRules

/// `com.canonical.dbusmenu`'s methods answered from a `PanelMenu`, as pure code: what arrives
/// is bounded by the menu, not by the call. However many ids a call names, the answer names
/// each of the menu's items at most once, and the ids it reports unknown are at most
/// `maximumReportedIDs`; clicks are at most one per item. (The fuzz target feeds this.)
extension PanelMenu {
    /// The most unknown ids an answer lists (an honest host asks for a handful).
    package static let maximumReportedIDs = 16

    /// The answer to one method call.
    package struct Answer: Equatable {
        package enum Outcome: Equatable {
            case reply([Variant])
            case failure(name: String, message: String)
        }
        package var outcome: Outcome
        /// Items clicked by the call (`Event`, `EventGroup`), in order, each once.
        package var clicked: [Int32] = []
    }

    /// Answers `method` with `arguments` as GDBus delivered them (their types checked against
    /// the introspection; a missing one reads as an unknown id, never past the end).
    func answer(_ method: String, _ given: [Variant]) -> Answer {
        guard let called = PanelMenuMethod(named: method) else {
            return Answer(outcome: .failure(name: "org.freedesktop.DBus.Error.UnknownMethod",
                                            message: "no method \(String(method.prefix(64))) in \(PanelInterfaces.menuInterface)"))
        }
        let arguments = given + Array(repeating: Variant.tuple([]), count: max(0, 4 - given.count))
        switch called {
        case .getLayout:
            let id = Self.int32(arguments[0]), depth = Self.int32(arguments[1]), names = Self.strings(arguments[2])
            guard knows(id) else { return unknownItem(id) }
            return Answer(outcome: .reply([.uint32(revision), layout(of: id, depth: depth, names: names)]))
        case .getGroupProperties:
            let ids = Self.int32s(arguments[0]), names = Self.strings(arguments[1])
            // Each known item once, in the menu's order: the reply is bounded by the menu.
            let asked = Set(ids)
            let wanted = ([0] + items.map(\.id)).filter { ids.isEmpty || asked.contains($0) }
            return Answer(outcome: .reply([.array(elementType: "(ia{sv})", wanted.map {
                .tuple([.int32($0), .vardict(properties(of: $0, names: names))])
            })]))
        case .getProperty:
            let id = Self.int32(arguments[0]), name = arguments[1].string ?? ""
            guard knows(id) else { return unknownItem(id) }
            guard let value = properties(of: id, names: [name]).values.first else {
                return Answer(outcome: .failure(name: "org.freedesktop.DBus.Error.InvalidArgs",
                                                message: "menu item \(id) has no property \(String(name.prefix(64))); it has \(properties(of: id).keys.sorted().joined(separator: ", "))"))
            }
            return Answer(outcome: .reply([.variant(value)]))
        case .event:
            let id = Self.int32(arguments[0])
            guard knows(id) else { return unknownItem(id) }
            // The root (0) is the menu itself, no item: clicking it presses nothing.
            return Answer(outcome: .reply([]), clicked: arguments[1].string == "clicked" && id != 0 ? [id] : [])
        case .eventGroup:
            var unknown: [Int32] = [], clicked: [Int32] = []
            for event in arguments[0].array ?? [] {
                guard case .tuple(let fields) = event, fields.count == 4 else { continue }
                let id = Self.int32(fields[0])
                guard knows(id) else { unknown.append(id); continue }
                if fields[1].string == "clicked", id != 0, !clicked.contains(id) { clicked.append(id) }
            }
            return Answer(outcome: .reply([.array(elementType: "i", Self.reported(unknown))]), clicked: clicked)
        case .aboutToShow:
            return Answer(outcome: .reply([.bool(false)]))
        case .aboutToShowGroup:
            let unknown = Self.int32s(arguments[0]).filter { !knows($0) }
            return Answer(outcome: .reply([.array(elementType: "i", []), .array(elementType: "i", Self.reported(unknown))]))
        }
    }

    private func unknownItem(_ id: Int32) -> Answer {
        Answer(outcome: .failure(name: "com.canonical.dbusmenu.Error.UnknownItem",
                                 message: "no menu item \(id) in revision \(revision); read the layout again (GetLayout)"))
    }

    /// Unknown ids as an answer lists them: each once, at most `maximumReportedIDs`.
    private static func reported(_ ids: [Int32]) -> [Variant] {
        var seen = Set<Int32>(), listed: [Variant] = []
        for id in ids where listed.count < maximumReportedIDs && seen.insert(id).inserted { listed.append(.int32(id)) }
        return listed
    }

    private static func int32(_ value: Variant) -> Int32 { value.int64.flatMap { Int32(exactly: $0) } ?? -1 }
    private static func int32s(_ value: Variant) -> [Int32] { (value.array ?? []).map(int32) }
    private static func strings(_ value: Variant) -> [String] { (value.array ?? []).compactMap(\.string) }
}

/// The menu's answers checked against their bounds, for the fuzz target (`reveille-fuzz-dbusmenu`).
package enum PanelMenuProbe {
    /// A menu as one ringing alarm and one counting down show it.
    package static let menu = PanelMenu.empty.showing([
        .heading("Tea"), .button(UUID(), .stop, label: "Stop"), .button(UUID(), .secondary, label: "Snooze"), .separator,
        .heading("Pasta"), .button(UUID(), .pause, label: "Pause"), .button(UUID(), .stop, label: "Cancel"),
    ])

    /// Every method of the menu with the D-Bus signature of what a caller sends, in the table's order.
    package static let methods: [(name: String, signature: String)] = PanelMenuMethod.methods.map { ($0.name, $0.inputSignature) }

    /// Answers `method` from `menu` and traps when the answer passes its bounds.
    package static func check(_ method: String, _ arguments: [Variant]) {
        let answer = menu.answer(method, arguments)
        precondition(Set(answer.clicked).count == answer.clicked.count, "an item clicked twice by one call")
        precondition(answer.clicked.allSatisfy { menu.knows($0) && $0 != 0 }, "a click on an item the menu does not have")
        guard case .reply(let values) = answer.outcome else { return }
        let items = menu.items.count + 1
        for value in values {
            guard case .array(let type, let entries) = value else { continue }
            precondition(entries.count <= max(items, PanelMenu.maximumReportedIDs), "\(method) answered \(entries.count) \(type) entries")
        }
    }
}
