import CGLib
import ReveilleLoop

/// The one door to a connection's exported objects. Every object is exported through it, and
/// once a connection has a gate nothing is exported beside it (`BusConnection.register` refuses).
/// Before any work it applies to every method call and property read (which come as calls of
/// `org.freedesktop.DBus.Properties`): who the caller is (`identify`, the agent's rules) against
/// who the object is for (`Audience`), the argument bound of the object, and the caller's
/// `ClientBudget` of loop time and of unread reply bytes.
///
/// Who a caller is, is asked once per connection, without waiting on the loop: its calls wait
/// (within the same bounds as calls waiting for their budget) until `identify` answers, and the
/// answer, a refusal too, is kept until the connection leaves the bus. A look-up costs the
/// caller's budget, and at most `maximumLookups` are under way at once: a flood of new
/// connections waits for its own look-ups, never holds the loop.
@GLibActor
package final class ExportGate {
    /// How a caller stands, as `identify` tells it.
    package enum Caller: Sendable, Equatable {
        /// The user's own tools: an unconfined process that did not introduce itself as an app
        /// (the CLI, the alert window, the desktop's panel host).
        case user
        /// An unconfined app that introduced itself.
        case app
        /// An app in a sandbox (Flatpak).
        case sandboxed
    }

    /// Who an object is for.
    package enum Audience: String, Sendable, Equatable {
        /// Every caller the agent can identify; the object answers each with its own view.
        case everyone
        /// The user's own tools only: the object shows or does what is the user's.
        case user
    }

    /// What every client may cost by default: half the loop over time, 1 s at once; 10 MiB of
    /// replies unread (two of the largest pages and some), a Ping after each 64 KiB (so a client
    /// that reads shows it before `unreadShareUnderPressure`).
    package static let defaultLimits = ClientBudget.Limits(loopShare: 0.5, loopBurst: 1,
                                                           unreadBytes: 10 << 20, confirmAfterBytes: 64 << 10)
    /// Replies unread by all clients together past which a client with `unreadShareUnderPressure`
    /// or more unread is refused: 200 connections each within its own 10 MiB could make 2 GB
    /// wait in the agent and the bus (GetAll floods grew the agent 91 MiB).
    package static let unreadInAllLimit = 16 << 20
    package static let unreadShareUnderPressure = 64 << 10
    /// What all clients together may cost: half the loop over time, 0.5 s at once. The rest is the
    /// alarms': however many clients call, the loop is never theirs alone, so no backlog of calls
    /// grows in front of an alarm. The burst is what an alarm may wait behind: four menu floods
    /// delayed one 16.7 s at a quarter each and no total, 4.3 s with a 3 s burst, 0.2 s with this.
    package static let allClientsLimits = ClientBudget.Limits(loopShare: 0.5, loopBurst: 0.5, unreadBytes: .max, confirmAfterBytes: .max)
    /// Calls of one client that wait for its budget to refill: a client that calls one at a time
    /// is slowed, never refused; past these, calls are refused at once.
    package static let maximumWaitingCalls = 8
    /// Calls of all clients together that wait: however many connections call, what waits is bounded.
    package static let maximumWaitingCallsInAll = 256

    /// The connection the objects are exported on.
    package let bus: BusConnection
    private let limits: ClientBudget.Limits
    private let identify: @GLibActor (_ sender: String, _ answer: @escaping @GLibActor (Result<Caller, BusError>) -> Void) -> Void
    private var budgets: [String: ClientBudget] = [:]
    /// Who each connection that called is (or why it cannot be told), until it leaves the bus.
    private var callers: [String: Result<Caller, BusError>] = [:]
    /// Connections whose look-up is under way, and those waiting for one to start.
    private var lookingUp: Set<String> = []
    private var lookupQueue: [String] = []
    /// Look-ups under way at once, however many connections call: each is one message to the
    /// bus daemon and a read of the caller's process, so many can be under way; a crowd of new
    /// connections is answered by the daemon in its turn, not one after another.
    package static let maximumLookups = 256
    /// What a look-up costs the caller's budget (seconds of its loop share): the bus's own work
    /// and the reads of its process are paid by who asks for them.
    package static let lookupCost = 0.002
    /// Callers kept past this are forgotten, refusals first (a name is never reused on a bus,
    /// and departures forget them as they come; this bounds what a missed departure leaves).
    package static let maximumCallersKept = 4096
    /// The loop time of all clients together.
    private var everyone = ClientBudget(limits: ExportGate.allClientsLimits, now: ExportGate.now)
    /// What all calls answering a ringing alarm from the user's tools may cost together: a budget
    /// of their own, apart from `everyone`'s, so a flood of them (any unconfined process is the
    /// user to the agent) neither holds the other calls back nor takes the loop from the alarm.
    package static let answeringLimits = ClientBudget.Limits(loopShare: 0.25, loopBurst: 0.25, unreadBytes: .max, confirmAfterBytes: .max)
    private var answering = ClientBudget(limits: ExportGate.answeringLimits, now: ExportGate.now)
    /// Calls that wait for their client's budget, in order, by client.
    private var waiting: [String: [Waiting]] = [:]
    private var waitingInAll = 0
    private struct Waiting {
        let call: MethodCall
        let audience: Audience
        /// A call that answers a ringing alarm (Stop, Snooze, a menu's or a media key's press):
        /// from the user's own tools it waits for its own client's budget only, never for what
        /// all clients together used, so a flood from many connections cannot hold the person's
        /// Stop back. From an app it is a call like any other (`sharesBudget`).
        let answers: Bool
        let handler: @GLibActor (MethodCall) -> Void
    }
    /// The `NameOwnerChanged` subscription that forgets a client once it left the bus.
    private var departures: UInt32 = 0

    /// Takes over exporting on `bus`. `identify` says who a caller of a method (or property) is,
    /// or the error to refuse it with when that cannot be told (the agent fails closed).
    package init(bus: BusConnection, limits: ClientBudget.Limits = ExportGate.defaultLimits,
                 incoming: IncomingBudget.Limits = IncomingBudget.defaultLimits,
                 identify: @escaping @GLibActor (_ sender: String, _ answer: @escaping @GLibActor (Result<Caller, BusError>) -> Void) -> Void) {
        self.bus = bus
        self.limits = limits
        self.identify = identify
        self.incoming = IncomingBudget(limits: incoming)
        bus.isGated = true
        // A client that left owes nothing and reads nothing more: its budget and the calls it
        // left waiting go (each `reveille` run is a new connection; kept, they would only grow).
        // What arrives is bounded before GDBus queues it; introspection comes through the gate
        // too (GDBus would answer it outside, unbounded).
        filter = bus.filterIncoming(budget: self.incoming) { [weak self] call in self?.introspect(call) ?? Self.refuseGone(call) }
        departures = bus.subscribe(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", name: "NameOwnerChanged",
                                   path: "/org/freedesktop/DBus") { [weak self] signal in
            let names = signal.arguments.map { $0.string ?? "" }
            guard names.count == 3, names[0].hasPrefix(":"), names[2].isEmpty else { return }
            self?.forget(names[0])
        }
    }

    isolated deinit {
        bus.unsubscribe(departures)
        bus.removeFilter(filter)
        for peer in peers.values {
            for registrations in peer.registrations.values { peer.connection.unregister(registrations) }
            peer.connection.removeFilter(peer.filter)
        }
    }

    /// An `Introspect` call the filter took: admitted like any other, answered from what is described.
    private func introspect(_ call: MethodCall) {
        arrive(Waiting(call: call, audience: .everyone, answers: false) { [weak self] call in
            guard let self else { return call.reply([.string(Self.emptyNode)]) }
            // A direct line's peer is told of what is exported there only.
            let onDirectLine = self.peers[call.sender] != nil
            call.reply([.string(self.introspection(of: call.path) { exported in
                !onDirectLine || self.directExports.contains { $0.registrations == exported }
            })])
        })
    }

    private static func refuseGone(_ call: MethodCall) { call.fail(name: gone.name, message: gone.message) }

    // MARK: A direct line's peers

    /// The peers of a `DirectLine` let in through this gate, by name: their connection, its
    /// filter, and what is exported on it (by the registrations on the bus it repeats).
    private var peers: [String: (connection: BusConnection, filter: UInt32, registrations: [[UInt32]: [UInt32]])] = [:]
    /// What is exported on the direct line too (`export(onDirectLine:)`), to repeat on each peer.
    private var directExports: [(registrations: [UInt32], path: String, introspectionXML: String, maximumArgumentBytes: Int,
                                 handler: @GLibActor (MethodCall) -> Void)] = []

    /// Lets `peer`, a direct line's connection named `name`, in: what arrives from it is bounded
    /// by the same budget as the bus's, its calls wait for its identity (`identify(name)`) and
    /// its budget as a bus caller's do, and it sees what is exported on the direct line.
    package func admit(peer connection: BusConnection, as name: String) {
        connection.isGated = true
        let filter = connection.filterIncoming(budget: incoming, peerName: name) { [weak self] call in self?.introspect(call) ?? Self.refuseGone(call) }
        var registrations: [[UInt32]: [UInt32]] = [:]
        for export in directExports {
            registrations[export.registrations] = try? connection.registerObject(
                path: export.path, introspectionXML: export.introspectionXML, maximumArgumentBytes: export.maximumArgumentBytes,
                properties: nil, handler: export.handler)
        }
        peers[name] = (connection, filter, registrations)
    }

    /// The peer `name` is gone: what it left waiting is dropped and its budget forgotten.
    package func release(peer name: String) {
        guard let peer = peers.removeValue(forKey: name) else { return }
        for registrations in peer.registrations.values { peer.connection.unregister(registrations) }
        peer.connection.removeFilter(peer.filter)
        forget(name)
    }

    /// Where `sender` is reached: its peer connection (where calls name no one), else the bus.
    private func route(_ sender: String) -> (connection: BusConnection, destination: String?) {
        if let peer = peers[sender] { return (peer.connection, nil) }
        return (bus, sender)
    }

    /// The filter that bounds what arrives and brings `Introspect` calls to the gate.
    private var filter: UInt32 = 0
    /// What the messages received and not yet freed hold, by sender and in all.
    package let incoming: IncomingBudget
    /// What is exported, by registration: its path and its introspection XML (described anew
    /// for each `Introspect`, which the gate lets through at its pace: kept, the descriptions
    /// were 36 KiB more heap in every idle agent, for calls that seldom come).
    private var described: [(registrations: [UInt32], path: String, introspectionXML: String)] = []

    /// `Introspect`'s answer for `path`: its interfaces (and the standard ones), and the nodes
    /// below it that lead to an exported object; an empty node elsewhere, as GDBus answers.
    private func introspection(of path: String, including: (_ registrations: [UInt32]) -> Bool = { _ in true }) -> String {
        let described = self.described.filter { including($0.registrations) }
        let here = described.filter { $0.path == path }.map { BusConnection.interfaceDescriptions(in: $0.introspectionXML) }.joined()
        let prefix = path == "/" ? "/" : path + "/"
        let children = Set(described.compactMap { entry -> String? in
            guard entry.path.hasPrefix(prefix), entry.path.count > prefix.count else { return nil }
            return entry.path.dropFirst(prefix.count).split(separator: "/").first.map(String.init)
        }).sorted()
        guard !here.isEmpty || !children.isEmpty else { return Self.emptyNode }
        return Self.doctype + "<node>\n" + (here.isEmpty ? "" : Self.standardInterfaces + here)
            + children.map { "  <node name=\"\($0)\"/>\n" }.joined() + "</node>\n"
    }

    private static let doctype = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
        "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">

        """
    private static let emptyNode = doctype + "<node>\n</node>\n"
    /// The interfaces every exported object has through GDBus, described as GDBus describes them.
    private static let standardInterfaces = """
          <interface name="org.freedesktop.DBus.Properties">
            <method name="Get">
              <arg type="s" name="interface_name" direction="in"/>
              <arg type="s" name="property_name" direction="in"/>
              <arg type="v" name="value" direction="out"/>
            </method>
            <method name="GetAll">
              <arg type="s" name="interface_name" direction="in"/>
              <arg type="a{sv}" name="properties" direction="out"/>
            </method>
            <method name="Set">
              <arg type="s" name="interface_name" direction="in"/>
              <arg type="s" name="property_name" direction="in"/>
              <arg type="v" name="value" direction="in"/>
            </method>
            <signal name="PropertiesChanged">
              <arg type="s" name="interface_name"/>
              <arg type="a{sv}" name="changed_properties"/>
              <arg type="as" name="invalidated_properties"/>
            </signal>
          </interface>
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect">
              <arg type="s" name="xml_data" direction="out"/>
            </method>
          </interface>
          <interface name="org.freedesktop.DBus.Peer">
            <method name="Ping"/>
            <method name="GetMachineId">
              <arg type="s" name="machine_uuid" direction="out"/>
            </method>
          </interface>

        """

    /// How many clients the gate keeps a budget for: those that called and are still on the bus.
    package var clientCount: Int { budgets.count }

    /// Forgets `client`, which left the bus; its waiting calls are dropped unanswered (no one reads them).
    private func forget(_ client: String) {
        budgets[client] = nil
        callers[client] = nil
        lookupQueue.removeAll { $0 == client }
        for sharing in [true, false] {
            lines[sharing]?.removeAll { $0 == client }
            served[sharing]?[client] = nil
        }
        for call in waiting.removeValue(forKey: client) ?? [] {
            waitingInAll -= 1
            call.call.drop()
        }
    }

    /// Exports the interfaces of `introspectionXML` at `path` for `audience`. A call reaches
    /// `handler` only once the caller is admitted; its arguments are converted only within
    /// `maximumArgumentBytes` (`MethodCall.isOversized`). `properties` answers property reads
    /// the same way (`nil`: no such property). Returns the registrations for `unexport`.
    /// `answering`: the methods that answer a ringing alarm (`Waiting.answers`). `reader` hears
    /// each caller admitted to read the properties (whom their changes may be told).
    package func export(path: String, introspectionXML: String, audience: Audience, maximumArgumentBytes: Int,
                        answering: Set<String> = [],
                        properties: (@GLibActor (_ interface: String, _ name: String) -> Variant?)? = nil,
                        reader: (@GLibActor (_ sender: String) -> Void)? = nil,
                        onDirectLine: Bool = false,
                        handler: @escaping @GLibActor (MethodCall) -> Void) throws(BusError) -> [UInt32] {
        // Property reads come as calls (no getter is registered), so they wait for the caller's
        // identity and budget as calls do.
        let readable = BusConnection.readableProperties(in: introspectionXML)
        let admit: @GLibActor (MethodCall) -> Void = { [weak self] call in
            guard let self else { return Self.refuseGone(call) }
            guard call.interface == Self.propertiesInterface else {
                // The direct line is the user's own tools' alone (no sandbox, at most 32): their calls
                // have the priority answering calls have, and a flood of reads on the bus (any
                // unconfined process is the user there) does not hold back the look-up that
                // comes before a `reveille stop` (2.5 s behind GetAll's under the whole suite).
                let answers = answering.contains(call.method) || self.peers[call.sender] != nil
                return self.arrive(Waiting(call: call, audience: audience, answers: answers, handler: handler))
            }
            self.arrive(Waiting(call: call, audience: audience, answers: false) { call in
                reader?(call.sender)
                Self.answerProperties(call, readable: readable, properties)
            })
        }
        let registrations = try bus.registerObject(path: path, introspectionXML: introspectionXML, maximumArgumentBytes: maximumArgumentBytes,
                                                   properties: nil, handler: admit)
        described.append((registrations, path, introspectionXML))
        if onDirectLine {
            directExports.append((registrations, path, introspectionXML, maximumArgumentBytes, admit))
            for (name, peer) in peers {
                peers[name]?.registrations[registrations] = try? peer.connection.registerObject(
                    path: path, introspectionXML: introspectionXML, maximumArgumentBytes: maximumArgumentBytes, properties: nil, handler: admit)
            }
        }
        return registrations
    }

    private static let propertiesInterface = "org.freedesktop.DBus.Properties"

    /// Answers Get, GetAll and Set of `org.freedesktop.DBus.Properties` from `properties`.
    private static func answerProperties(_ call: MethodCall, readable: [String: [String]],
                                         _ properties: (@GLibActor (_ interface: String, _ name: String) -> Variant?)?) {
        let arguments = call.arguments.compactMap(\.string)
        switch (call.method, arguments.count) {
        case ("Get", 2):
            guard let value = properties?(arguments[0], arguments[1]) else {
                let error = BusConnection.unknownProperty(arguments[1], in: arguments[0])
                return call.fail(name: error.name, message: error.message)
            }
            call.reply([.variant(value)])
        case ("GetAll", 1):
            var values: [String: Variant] = [:]
            for name in readable[arguments[0]] ?? [] { values[name] = properties?(arguments[0], name) }
            call.reply([.vardict(values)])
        case ("Set", _):
            call.fail(name: "org.freedesktop.DBus.Error.PropertyReadOnly", message: "the properties of this object cannot be set")
        default:
            call.fail(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "\(call.method) of \(Self.propertiesInterface) with these arguments is not answered")
        }
    }

    /// Removes what `export` exported.
    package func unexport(_ registrations: [UInt32]) {
        bus.unregister(registrations)
        described.removeAll { $0.registrations == registrations }
        directExports.removeAll { $0.registrations == registrations }
        for (name, peer) in peers {
            guard let repeated = peer.registrations[registrations] else { continue }
            peer.connection.unregister(repeated)
            peers[name]?.registrations[registrations] = nil
        }
    }

    // MARK: Admission

    /// A call is served now, or waits behind its client's earlier calls or for its budget to
    /// refill; past `maximumWaitingCalls` waiting it is refused.
    private func arrive(_ next: Waiting) {
        let sender = next.call.sender
        if case .failure(let refusal) = callers[sender] {
            // Told once, when it was looked up; each call after that is refused at once.
            return refuse(next.call, refusal)
        }
        let known = callers[sender] != nil
        if known, waiting[sender] == nil, (lines[sharesBudget(next)] ?? []).isEmpty, busy(sender, sharing: sharesBudget(next)) == nil {
            return serve(next)
        }
        guard (waiting[sender]?.count ?? 0) < Self.maximumWaitingCalls, waitingInAll < Self.maximumWaitingCallsInAll || makeRoom(for: sender) else {
            let error = Self.error(.busy(seconds: known ? busy(sender, sharing: sharesBudget(next)) ?? 0 : 1))
            return refuse(next.call, error)
        }
        let first = waiting[sender] == nil
        waiting[sender, default: []].append(next)
        waitingInAll += 1
        guard known else { return lookUp(sender) }
        if first { wake(sender) }
    }

    /// All waiting places are taken: a client with none of its calls waiting still gets one,
    /// taken from the client with the most calls waiting (its last one is refused, as busy). So
    /// many connections that each keep calls waiting cannot shut a new one (the user's `reveille
    /// stop`) out: the places go round.
    private func makeRoom(for sender: String) -> Bool {
        guard waiting[sender] == nil, let (crowded, calls) = waiting.max(by: { $0.value.count < $1.value.count }),
              let evicted = calls.last else { return false }
        waiting[crowded] = calls.count == 1 ? nil : Array(calls.dropLast())
        waitingInAll -= 1
        let error = Self.error(.busy(seconds: 1))
        refuse(evicted.call, error)
        return true
    }

    /// Whether `call` waits for what all clients together used too: every call but one that
    /// answers a ringing alarm from the user's own tools.
    private func sharesBudget(_ call: Waiting) -> Bool {
        !(call.answers && callers[call.call.sender] == .success(.user))
    }

    /// Asks who `sender` is, now or once fewer look-ups are under way; its calls wait meanwhile.
    private func lookUp(_ sender: String) {
        guard !lookingUp.contains(sender), !lookupQueue.contains(sender) else { return }
        guard lookingUp.count < Self.maximumLookups else { return lookupQueue.append(sender) }
        lookingUp.insert(sender)
        var budget = budgets[sender] ?? ClientBudget(limits: limits, now: Self.now)
        budget.charge(seconds: Self.lookupCost, now: Self.now)
        budgets[sender] = budget
        identify(sender) { [weak self] caller in
            guard let self else { return }
            self.lookingUp.remove(sender)
            if !self.lookupQueue.isEmpty { self.lookUp(self.lookupQueue.removeFirst()) }
            // Only for a connection still waiting: one that left meanwhile is forgotten already.
            guard self.waiting[sender] != nil else { return }
            // A look-up the bus did not answer in time is no answer: asked again at the next call.
            if case .failure(let refusal) = caller, refusal.name == Self.busyName {
                for call in self.waiting.removeValue(forKey: sender) ?? [] {
                    self.waitingInAll -= 1
                    self.refuse(call.call, refusal)
                }
                return
            }
            self.keep(caller, for: sender)
            guard case .failure(let refusal) = caller else { return self.drain(sender) }
            for call in self.waiting.removeValue(forKey: sender) ?? [] {
                self.waitingInAll -= 1
                self.refuse(call.call, refusal)
            }
        }
    }

    private func keep(_ caller: Result<Caller, BusError>, for sender: String) {
        if callers.count >= Self.maximumCallersKept {
            callers = callers.filter { if case .success = $0.value { waiting[$0.key] != nil || budgets[$0.key] != nil } else { false } }
            if callers.count >= Self.maximumCallersKept { callers = [:] }
        }
        callers[sender] = caller
    }

    /// Serves the calls waiting for `sender` while its budget allows, and waits again when not.
    private func drain(_ sender: String) {
        while let queue = waiting[sender], let next = queue.first {
            if ownBusy(sender) != nil { return wake(sender) }
            let sharing = sharesBudget(next)
            // What all clients share is taken in turn: one waiting in line for it goes there.
            if sharedBusy(sharing: sharing) != nil || !(lines[sharing] ?? []).isEmpty { return joinLine(sender, sharing: sharing) }
            waiting[sender] = queue.count == 1 ? nil : Array(queue.dropFirst())
            waitingInAll -= 1
            serve(next)
        }
    }

    /// Clients whose next call waits only for what all clients share (everyone's budget, `true`;
    /// the answering calls', `false`). The next served is the one that used least of it (fair
    /// queuing, as a scheduler's virtual run time): a connection that calls now and then (the
    /// user's `reveille stop`) goes before 200 that keep calls waiting, rather than behind each
    /// of them in turn (1-11 s with a round turn).
    private var lines: [Bool: [String]] = [:]
    private var lineWakePending: Set<Bool> = []
    /// Loop time each client in a line was served, in seconds: a client joining is put just
    /// below the least served there, so it neither owes what it did not wait for nor jumps ahead
    /// of the line for its whole past.
    private var served: [Bool: [String: Double]] = [:]
    /// The least a served call is counted, so near-free calls still take turns.
    private static let leastTurn = 0.000_05

    private func joinLine(_ sender: String, sharing: Bool) {
        if !(lines[sharing] ?? []).contains(sender) {
            // Just below the least served: a client that waited for nothing since its last call
            // goes next, once; one served more than the line recently waits for it.
            let level = ((lines[sharing] ?? []).compactMap { served[sharing]?[$0] }.min() ?? 0) - Self.leastTurn
            served[sharing, default: [:]][sender] = max(served[sharing]?[sender] ?? level, level)
            lines[sharing, default: []].append(sender)
        }
        wakeLine(sharing)
    }

    /// Takes the least served client out of the line.
    private func nextInLine(_ sharing: Bool) -> String? {
        guard let line = lines[sharing], !line.isEmpty else { return nil }
        let times = served[sharing] ?? [:]
        let index = line.indices.min { (times[line[$0]] ?? 0) < (times[line[$1]] ?? 0) }!
        return lines[sharing]!.remove(at: index)
    }

    private func wakeLine(_ sharing: Bool) {
        guard !(lines[sharing] ?? []).isEmpty, !lineWakePending.contains(sharing) else { return }
        lineWakePending.insert(sharing)
        let milliseconds = UInt32(min(60_000, ((sharedBusy(sharing: sharing) ?? 0) * 1000).rounded(.up))) + 1
        MainLoopSources.after(milliseconds: milliseconds) { [weak self] in
            guard let self else { return }
            self.lineWakePending.remove(sharing)
            self.serveLine(sharing)
        }
    }

    /// Serves the line's clients in turn, one call each, while the shared budget allows.
    private func serveLine(_ sharing: Bool) {
        var turns = lines[sharing]?.count ?? 0
        while turns > 0, let sender = nextInLine(sharing) {
            turns -= 1
            guard let queue = waiting[sender], let next = queue.first, sharesBudget(next) == sharing else {
                if waiting[sender] != nil { drain(sender) }
                continue
            }
            if ownBusy(sender) != nil {
                wake(sender)
                continue
            }
            if sharedBusy(sharing: sharing) != nil {
                lines[sharing]?.insert(sender, at: 0)
                break
            }
            waiting[sender] = queue.count == 1 ? nil : Array(queue.dropFirst())
            waitingInAll -= 1
            let start = Self.now
            serve(next)
            served[sharing, default: [:]][sender, default: 0] += max(Self.leastTurn, Self.now - start)
            if waiting[sender] != nil { lines[sharing, default: []].append(sender) }
        }
        // With nobody waiting, what was served is forgotten: the next crowd starts level.
        if (lines[sharing] ?? []).isEmpty { served[sharing] = [:] }
        wakeLine(sharing)
    }

    private func wake(_ sender: String) {
        let sharing = waiting[sender]?.first.map(sharesBudget) ?? true
        let milliseconds = UInt32(min(60_000, ((busy(sender, sharing: sharing) ?? 0) * 1000).rounded(.up))) + 1
        MainLoopSources.after(milliseconds: milliseconds) { [weak self] in self?.drain(sender) }
    }

    /// The seconds before `sender` may be served again, when it, or all clients together
    /// (`sharing`; else all answering calls together), used their share of the loop.
    private func busy(_ sender: String, sharing: Bool) -> Double? {
        let own = ownBusy(sender), all = sharedBusy(sharing: sharing)
        guard own != nil || all != nil else { return nil }
        return max(own ?? 0, all ?? 0)
    }

    /// The seconds before `sender` may be served again, when it used its share of the loop.
    private func ownBusy(_ sender: String) -> Double? {
        let now = Self.now
        var budget = budgets[sender] ?? ClientBudget(limits: limits, now: now)
        defer { budgets[sender] = budget }
        return if case .busy(let seconds) = budget.admit(now: now) { seconds } else { nil }
    }

    /// The seconds before all clients together (`sharing`; else all answering calls together)
    /// may be served again, when they used their share of the loop.
    private func sharedBusy(sharing: Bool) -> Double? {
        let now = Self.now
        return if case .busy(let seconds) = (sharing ? everyone.admit(now: now) : answering.admit(now: now)) { seconds } else { nil }
    }

    private func serve(_ next: Waiting) {
        let call = next.call
        let sharing = sharesBudget(next)
        call.onAnswer = { [weak self, sender = call.sender] bytes in self?.replied(bytes, to: sender) }
        call.onDeferredWork = { [weak self, sender = call.sender] seconds in self?.charge(sender, seconds: seconds, sharing: sharing) }
        let outcome = admitted(call.sender, to: next.audience, sharing: sharing) { () -> Result<Void, BusError> in
            next.handler(call)
            return .success(())
        }
        guard case .failure(let error) = outcome else { return }
        refuse(call, error)
    }

    /// Charges `sender` for loop time its call took after its handler returned (the runtime
    /// made its change in a later turn), as `admitted` charges the handler's own: a client's
    /// changes cost it their share of the loop, whenever they are made.
    private func charge(_ sender: String, seconds: Double, sharing: Bool) {
        let now = Self.now
        if var budget = budgets[sender] {
            budget.charge(seconds: seconds, now: now)
            budgets[sender] = budget
        }
        if sharing { everyone.charge(seconds: seconds, now: now) } else { answering.charge(seconds: seconds, now: now) }
        // Counted in its line too, so it takes its turn after those that used less.
        if served[sharing]?[sender] != nil { served[sharing]?[sender]? += seconds }
    }

    /// Answers `call` with `error`, counted as a reply the caller has to read; to a caller that
    /// reads none (a Ping is owed, and refusals beyond `refusalBytes` wait behind it), nothing
    /// more is queued: the call is left to its caller's timeout. (Refusals to 200 connections
    /// that never read, each answered, held 50 MB in the agent while the bus was slow to take them.)
    private func refuse(_ call: MethodCall, _ error: BusError) {
        let budget = budgets[call.sender] ?? ClientBudget(limits: limits, now: Self.now)
        if budget.unread > limits.unreadBytes + Self.refusalBytes
            || (budget.awaitsPing && budget.unread >= limits.confirmAfterBytes + Self.refusalBytes) {
            return call.drop()
        }
        budgets[call.sender] = budget
        call.onAnswer = { [weak self, sender = call.sender] bytes in self?.replied(bytes, to: sender) }
        call.fail(name: error.name, message: error.message)
    }

    /// Runs `work` for `sender` if its budget and identity (known by now) admit it to `audience`,
    /// charging the loop time it took; else the refusal.
    private func admitted<Value>(_ sender: String, to audience: Audience, sharing: Bool,
                                 _ work: () -> Result<Value, BusError>) -> Result<Value, BusError> {
        let start = Self.now
        var budget = budgets[sender] ?? ClientBudget(limits: limits, now: start)
        let result: Result<Value, BusError>
        if let refusal = budget.admit(now: start) {
            result = .failure(Self.error(refusal))
        } else if budget.unread >= Self.unreadShareUnderPressure, unreadInAll(now: start) > Self.unreadInAllLimit {
            result = .failure(Self.unreadRefusal)
        } else {
            switch callers[sender] ?? .failure(Self.unknownCaller) {
            case .failure(let error): result = .failure(error)
            case .success(let caller) where audience == .user && caller != .user:
                result = .failure(BusError(name: "org.freedesktop.DBus.Error.AccessDenied",
                                           message: "this object shows the user's own alarms; it answers the user's own tools and the desktop's panel, not \(caller == .sandboxed ? "a sandboxed app" : "an app")"))
            case .success:
                // Stored before the work: a reply given during it is counted on this budget.
                budgets[sender] = budget
                result = work()
                budget = budgets[sender] ?? budget
            }
        }
        let end = Self.now
        budget.charge(seconds: end - start, now: end)
        if sharing { everyone.charge(seconds: end - start, now: end) } else { answering.charge(seconds: end - start, now: end) }
        budgets[sender] = budget
        forgetIdleClients()
        return result
    }

    /// What a queued reply holds beyond its arguments (GDBus's message and its serialised
    /// blob): a refusal of 250 bytes waits as 2 KiB, so small replies are counted at their cost.
    private static let replyOverhead = 1024

    /// Replies unread by all clients together, summed at most every 50 ms (the table is a few
    /// hundred clients under a flood; a call costs far less than a sum each).
    private func unreadInAll(now: Double) -> Int {
        if now - unreadSummedAt >= 0.05 {
            unreadSum = budgets.values.reduce(0) { $0 + $1.unread }
            unreadSummedAt = now
        }
        return unreadSum
    }
    private var unreadSum = 0
    private var unreadSummedAt = -Double.infinity

    /// A reply of `bytes` was queued toward `sender`: past the budget's step, a Ping follows it.
    private func replied(_ bytes: Int, to sender: String) {
        // A reply given after the client left (a change the runtime answered in a later turn):
        // nothing waits toward it, and no budget is made again for a name that is gone.
        guard var budget = budgets[sender] ?? (callers[sender] != nil ? ClientBudget(limits: limits, now: Self.now) : nil) else { return }
        let ping = budget.replied(bytes: bytes + Self.replyOverhead)
        budgets[sender] = budget
        guard ping else { return }
        let (connection, destination) = route(sender)
        connection.call(destination: destination, path: "/", interface: "org.freedesktop.DBus.Peer", method: "Ping",
                 timeoutMilliseconds: 30_000, autoStart: false) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success: self.budgets[sender]?.pingAnswered(read: true)
            case .failure(let error) where error.isServiceMissing:
                // The client left the bus: nothing waits toward it any more.
                self.budgets[sender] = nil
            case .failure(let error):
                // Any answer from the client itself, an error too, comes after it read what preceded the Ping.
                let fromTheClient = !error.name.hasPrefix("org.gtk.GLib.") && error.name != "org.freedesktop.DBus.Error.NoReply"
                self.budgets[sender]?.pingAnswered(read: fromTheClient)
            }
        }
    }

    /// Keeps the table of budgets to clients that owe something: a client that left the bus
    /// is forgotten once it is idle.
    private func forgetIdleClients() {
        guard budgets.count > 64 else { return }
        let now = Self.now
        budgets = budgets.filter { !$0.value.isIdle(now: now) || waiting[$0.key] != nil }
    }

    private static func error(_ refusal: ClientBudget.Refusal) -> BusError {
        switch refusal {
        case .busy(let seconds):
            BusError(name: "org.freedesktop.DBus.Error.LimitsExceeded",
                     message: "this connection used its share of reveille-agent's time; call again in \(Int((seconds * 1000).rounded(.up))) ms")
        case .unread: unreadRefusal
        }
    }

    private static let unreadRefusal = BusError(name: "org.freedesktop.DBus.Error.LimitsExceeded",
                                                message: "replies wait for this connection, which has not read them; read them before calling again")
    /// Refusals answered to a client that does not read before the rest are left unanswered.
    private static let refusalBytes = 16 << 10

    /// The refusal of a caller asked to call again (its budget, or a look-up not answered in time).
    package static let busyName = "org.freedesktop.DBus.Error.LimitsExceeded"

    private static let unknownCaller = BusError(name: "org.freedesktop.DBus.Error.AccessDenied", message: "who is calling is not known yet; the call is refused")

    private static let gone = BusError(name: "org.freedesktop.DBus.Error.UnknownObject", message: "the object is going away")

    /// Seconds on the monotonic clock.
    private nonisolated static var now: Double { Double(g_get_monotonic_time()) / 1_000_000 }
}
