import ReveilleCore
import ReveilleModel
import ReveilleRules

/// The calls that wait for the user's decision on an app, bounded by count and by bytes of
/// their arguments, per connection, per app and in all (`WireLimits`): an app nobody has
/// decided about cannot make the agent hold more than `WireLimits.parkedBytes` for it.
struct ParkedCalls {
    /// One admitted call, to hand back to `release` when it is answered.
    struct Ticket: Hashable {
        let connection: String
        let app: String
        let bytes: Int
    }

    private struct Usage {
        var calls = 0
        var bytes = 0

        mutating func add(_ bytes: Int, calls: Int = 1) {
            self.calls += calls
            self.bytes += bytes
        }
    }

    private var byConnection: [String: Usage] = [:]
    private var byApp: [String: Usage] = [:]
    private var total = Usage()

    /// The bytes held now, in all.
    var bytes: Int { total.bytes }

    /// Admits a call of `bytes` or refuses it (`invalidState`) naming the budget it would pass.
    mutating func admit(connection: String, app: String, bytes: Int) throws(AlarmError) -> Ticket {
        let checks: [(Usage, calls: Int, bytes: Int, whose: String, per: String)] = [
            (byConnection[connection] ?? Usage(), WireLimits.parkedCallsPerConnection, WireLimits.parkedBytesPerConnection,
             "this connection", "per connection"),
            (byApp[app] ?? Usage(), WireLimits.parkedCallsPerApp, WireLimits.parkedBytesPerApp, app, "per app"),
            (total, WireLimits.parkedCalls, WireLimits.parkedBytes, "all apps together", "in all"),
        ]
        for (usage, calls, limit, whose, per) in checks where usage.calls + 1 > calls || usage.bytes + bytes > limit {
            throw .invalidState("\(usage.calls) calls (\(usage.bytes) bytes) of \(whose) already wait for the user's decision; at most \(calls) \(per) and \(limit) bytes may")
        }
        let ticket = Ticket(connection: connection, app: app, bytes: bytes)
        byConnection[connection, default: Usage()].add(ticket.bytes)
        byApp[app, default: Usage()].add(ticket.bytes)
        total.add(ticket.bytes)
        return ticket
    }

    /// The call was answered: its share is free again.
    mutating func release(_ ticket: Ticket) {
        Self.remove(ticket.bytes, from: &byConnection, ticket.connection)
        Self.remove(ticket.bytes, from: &byApp, ticket.app)
        total.add(-ticket.bytes, calls: -1)
    }

    private static func remove(_ bytes: Int, from usage: inout [String: Usage], _ key: String) {
        usage[key]?.add(-bytes, calls: -1)
        if usage[key]?.calls ?? 0 <= 0 { usage[key] = nil }
    }
}
