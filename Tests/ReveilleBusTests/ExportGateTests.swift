import Foundation
@testable import ReveilleAgentRuntime
import ReveilleBus
import ReveilleLoop
import ReveilleModel
@testable import ReveillePanel
import ReveilleRules
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

/// What one client may cost at the gate (`ClientBudget`), and the panel menu's answers bounded
/// by the menu whatever a call names (issue 43, N1).
@Suite("The gate's budgets and the menu's bounds")
struct ExportGateTests {
    let limits = ClientBudget.Limits(loopShare: 0.1, loopBurst: 0.5, unreadBytes: 10_000, confirmAfterBytes: 1000)

    /// The panel's methods are tables: the XML the hosts read declares each once, in order, the
    /// menu answers every one (none is an unknown method), and a click (Event,
    /// EventGroup) is what the gate lets past other clients' use.
    @Test func thePanelsMethodTablesAreWhatTheXMLDeclaresAndTheMenuAnswers() {
        for (xml, methods) in [(PanelInterfaces.itemXML, PanelItemMethod.methods), (PanelInterfaces.menuXML, PanelMenuMethod.methods)] {
            let declared = xml.matches(of: /<method name="(\w+)"/).map { String($0.1) }
            #expect(declared == methods.map(\.name))
        }
        let menu = PanelMenuProbe.menu
        for method in PanelMenuMethod.allCases {
            if case .failure(let name, _) = menu.answer(method.name, []).outcome {
                #expect(name != "org.freedesktop.DBus.Error.UnknownMethod", "\(method.name) is answered")
            }
        }
        #expect(menu.answer("Nope", []).outcome == .failure(name: "org.freedesktop.DBus.Error.UnknownMethod",
                                                            message: "no method Nope in com.canonical.dbusmenu"))
        #expect(PanelMenuMethod.answering == ["Event", "EventGroup"])
        #expect(PanelMenuProbe.methods.map(\.signature) == ["iias", "aias", "is", "isvu", "a(isvu)", "i", "ai"], "what the fuzz target sends")
    }

    @Test func aClientThatUsedItsShareOfTheLoopIsRefusedUntilItRefills() {
        var budget = ClientBudget(limits: limits, now: 100)
        #expect(budget.admit(now: 100) == nil)
        budget.charge(seconds: 0.7, now: 100)
        // 0.2 s owed at 0.1 s a second: two seconds to wait.
        guard case .busy(let wait) = budget.admit(now: 100) else { Issue.record("a client over its share was admitted"); return }
        #expect(abs(wait - 2) < 0.001)
        #expect(budget.admit(now: 101) != nil)
        #expect(budget.admit(now: 102.01) == nil)
        // Refilled to the burst, no further.
        #expect(budget.admit(now: 1000) == nil)
        budget.charge(seconds: 0.49, now: 1000)
        #expect(budget.admit(now: 1000) == nil)
    }

    /// What a connection's received messages hold while alive is bounded by sender and in all;
    /// past all, a sender holding nothing still sends one small message (the user's stop among
    /// floods that keep messages waiting), and what is freed is given back.
    @Test func receivedMessagesAreBoundedBySenderAndInAllWithRoomForOneSmallCallOfEach() {
        let budget = IncomingBudget(limits: .init(perSender: 1000, inAll: 2000, smallMessage: 100, smallReserve: 1000))
        #expect(budget.take(600, from: ":1.1"))
        #expect(!budget.take(500, from: ":1.1"), "past its own 1000")
        #expect(budget.take(400, from: ":1.1"))
        #expect(budget.take(900, from: ":1.2"))
        #expect(!budget.take(200, from: ":1.3"), "past 2000 in all, and not small")
        #expect(budget.take(100, from: ":1.3"), "a small message of a sender holding nothing")
        #expect(!budget.take(50, from: ":1.3"), "but only one while it holds it")
        #expect(!budget.take(50, from: ":1.2"), "nor for a sender holding some")
        #expect(budget.held() == 2000 && budget.held(by: ":1.1") == 1000)
        budget.give(600, from: ":1.1")
        budget.give(400, from: ":1.1")
        #expect(budget.held(by: ":1.1") == 0 && budget.held() == 1000)
        #expect(budget.take(1000, from: ":1.1"), "room again once freed")
    }

    /// As the agent counts them: past all, the user's `reveille stop ID` (a body naming a whole
    /// id) is still a small message; and the room beyond all is bounded however many senders
    /// each keep one small message waiting (a connection each: the bus takes tens of thousands).
    @Test func theDefaultBudgetLetsTheUsersStopInPastAllAndBoundsTheRoomBeyondAll() {
        let budget = IncomingBudget()
        let inAll = IncomingBudget.defaultLimits.inAll
        var sender = 0
        while budget.take(256 << 10, from: ":1.\(sender)") { sender += 1 }
        #expect(budget.held() > inAll - (256 << 10))
        // Stop("0f8c7e2a-…"): a string of 36 bytes and its NUL after a 4-byte length.
        let stop = IncomingBudget.messageOverhead + 41
        #expect(budget.take(stop, from: ":1.user"), "the user's stop past all")
        // Introspect calls: no body at all.
        for crowd in 0..<10_000 { _ = budget.take(IncomingBudget.messageOverhead, from: ":1.crowd\(crowd)") }
        #expect(budget.held() <= inAll + (4 << 20), "beyond all: \(budget.held() - inAll) bytes")
    }

    @Test func repliesAClientDoesNotReadAreBoundedAndAnAnsweredPingFreesThem() {
        var budget = ClientBudget(limits: limits, now: 0)
        #expect(budget.replied(bytes: 999) == false)
        #expect(budget.replied(bytes: 1) == true, "a Ping follows the first KB")
        #expect(budget.replied(bytes: 5000) == false, "one Ping at a time")
        #expect(budget.replied(bytes: 5000) == false)
        #expect(budget.admit(now: 0) == .unread(bytes: 11_000))
        // The Ping went unanswered: still refused, and the next reply sends another.
        budget.pingAnswered(read: false)
        #expect(budget.admit(now: 0) == .unread(bytes: 11_000))
        #expect(budget.replied(bytes: 100) == true)
        // Answered: what was queued before it was read; what came after still counts.
        budget.pingAnswered(read: true)
        #expect(budget.unread == 0)
        #expect(budget.admit(now: 0) == nil)
        #expect(budget.isIdle(now: 0))
    }

    func menu() -> PanelMenu {
        PanelMenu.empty.showing([.heading("Pasta"), .button(UUID(), .pause, label: "Pause"), .button(UUID(), .stop, label: "Cancel")])
    }

    func reply(_ answer: PanelMenu.Answer) -> [Variant] {
        guard case .reply(let values) = answer.outcome else { Issue.record("refused: \(answer)"); return [] }
        return values
    }

    @Test func manyIdsInOneMenuCallAnswerNoMoreThanTheMenuHas() {
        let menu = menu()
        let known = menu.items.map(\.id)
        let asked = Array(repeating: known[0], count: 15_000) + Array(repeating: Int32(0), count: 100)
        let entries = reply(menu.answer("GetGroupProperties", [.array(elementType: "i", asked.map(Variant.int32)), .strings([])]))
        #expect(entries.first?.array?.count == 2, "the root and the asked item, once each: \(entries.first?.array?.count ?? -1)")
        let unknown = (1_000...16_000).map { Variant.int32(Int32($0)) }
        let errors = reply(menu.answer("AboutToShowGroup", [.array(elementType: "i", unknown)]))
        #expect(errors.last?.array?.count == PanelMenu.maximumReportedIDs)
        let clicks = Array(repeating: Variant.tuple([.int32(known[1]), .string("clicked"), .variant(.string("")), .uint32(0)]), count: 5000)
        let group = menu.answer("EventGroup", [.array(elementType: "(isvu)", clicks + [.tuple([.int32(99_999), .string("clicked"), .variant(.string("")), .uint32(0)])])])
        #expect(group.clicked == [known[1]], "one press however often it is named")
        #expect(reply(group).first?.array == [.int32(99_999)])
    }

    @Test func aMenuCallWithMissingOrWrongArgumentsIsAnsweredNotTrapped() {
        let menu = menu()
        for method in ["GetLayout", "GetGroupProperties", "GetProperty", "Event", "EventGroup", "AboutToShow", "AboutToShowGroup", "Nope"] {
            for arguments in [[], [Variant.string("x")], [.int32(.max), .int32(-5), .uint32(3), .tuple([])]] {
                _ = menu.answer(method, arguments)
            }
        }
        #expect(menu.answer("Event", [.int32(12345), .string("clicked")]).outcome
                == .failure(name: "com.canonical.dbusmenu.Error.UnknownItem", message: "no menu item 12345 in revision 1; read the layout again (GetLayout)"))
    }
}

/// Once a connection has a gate, nothing is exported beside it (issue 43, Deliver 1).
@Suite("The gate's connection", .waitsOnItsOwnThread)
struct ExportGateConnectionTests {
    static let xml = #"<node><interface name="org.test.Door"><method name="Knock"/></interface></node>"#

    @Test func aConnectionWithAGateExportsNothingBesideIt() async throws {
        let session = try TestSession(audio: .none)
        let bus = try BusConnection.connect(address: try #require(session.environment["DBUS_SESSION_BUS_ADDRESS"]))
        try await Task { @GLibActor in
            let before = try bus.register(path: "/Before", introspectionXML: Self.xml) { $0.reply() }
            #expect(before.count == 1, "a connection without a gate exports as before (the wake helper's, the tests' peers)")
            let gate = ExportGate(bus: bus) { _, answer in answer(.success(.user)) }
            #expect(throws: BusError.self, "a door beside the gate") {
                try bus.register(path: "/Beside", introspectionXML: Self.xml) { $0.reply() }
            }
            let through = try gate.export(path: "/Through", introspectionXML: Self.xml, audience: .user, maximumArgumentBytes: 1024) { $0.reply() }
            #expect(through.count == 1)
            gate.unexport(through)
            bus.unregister(before)
        }.value
    }

    /// Each `reveille` run, alert window or media-key press is a connection of its own: once it
    /// left the bus, the gate keeps nothing of it (its budget had stayed for the agent's lifetime,
    /// and the table's sweep grew with every client ever seen).
    @Test func aClientThatLeftTheBusIsForgotten() async throws {
        let session = try TestSession(audio: .none)
        let bus = try BusConnection.connect(address: try #require(session.environment["DBUS_SESSION_BUS_ADDRESS"]))
        let (gate, name) = try await Task { @GLibActor in
            let gate = ExportGate(bus: bus) { _, answer in answer(.success(.user)) }
            _ = try gate.export(path: "/Through", introspectionXML: Self.xml, audience: .user, maximumArgumentBytes: 1024) { $0.reply() }
            return (gate, bus.uniqueName)
        }.value
        for _ in 0..<5 {
            let knock = try session.gdbusCall(destination: name, path: "/Through", method: "org.test.Door.Knock", [])
            #expect(knock.status == 0, "\(knock.stderr)")
        }
        var left = await Task { @GLibActor in gate.clientCount }.value
        for _ in 0..<200 where left > 0 {
            try await Task.sleep(for: .milliseconds(25))
            left = await Task { @GLibActor in gate.clientCount }.value
        }
        #expect(left == 0, "five callers came and went; the gate still keeps \(left)")
    }
}
