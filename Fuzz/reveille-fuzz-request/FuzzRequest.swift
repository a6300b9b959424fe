import FoundationEssentials
import ReveilleCore
import ReveilleFuzzSupport
import ReveilleModel
import ReveilleRules

/// A method call as the agent decodes it (`AgentCall.decode`, then a configuration's
/// `AlarmRequest.decode` and `validate`): whatever arrives is accepted or refused with a
/// reason, and never traps. Input: a first byte saying what follows: even, a configuration's
/// JSON whole; else fields separated by NUL, the first the method's name when the byte is 3
/// modulo 4 (the seeds: they stay what they are whatever the table's order), else the method
/// is `AgentMethod.table`'s by the byte; the other fields the arguments, each a string, or
/// `#` and a number, `+` and a count, or `{` and a dictionary's entry count.
@main enum FuzzRequest {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func main() {
        FuzzTarget.main { bytes in
            guard let first = bytes.first else { return }
            let rest = bytes.dropFirst()
            if first % 2 == 0 {
                check(configuration: String(decoding: rest, as: UTF8.self))
                return
            }
            var fields = rest.split(separator: 0, omittingEmptySubsequences: false)[...]
            let method = first % 4 == 3 ? String(decoding: fields.popFirst().map(Array.init) ?? [], as: UTF8.self)
                : AgentCall.methods[Int(first / 4) % AgentCall.methods.count]
            let arguments = fields.map { part -> AgentCall.Argument in
                let text = String(decoding: part, as: UTF8.self)
                if text.hasPrefix("#") { return .number(Double(text.dropFirst()) ?? .nan) }
                if text.hasPrefix("+") { return UInt32(text.dropFirst()).map(AgentCall.Argument.count) ?? .other }
                if text.hasPrefix("{") { return .dictionary(count: text.count) }
                return .string(text)
            }
            guard let call = try? AgentCall.decode(method: method, arguments: arguments) else { return }
            // The client's encoding, from the same table entry, reads back as the same call.
            let wire = call.wire
            precondition(wire.method == method && (try? AgentCall.decode(method: method, arguments: wire.arguments)) == call,
                         "\(call) does not read back from its encoding")
            switch call {
            case .schedule(_, let configuration), .update(_, let configuration): check(configuration: configuration)
            case .listPage(_, let limit): precondition((1...WireLimits.pageAlarms).contains(limit))
            default: break
            }
        }
    }

    static func check(configuration: String) {
        // StrictJSON, which reads a configuration first, against Foundation: it takes what
        // Foundation takes, but a repeated key, a trailing comma, nesting past its bound, a
        // lone surrogate and what follows a NUL (Foundation stops reading there); Foundation
        // refuses `0e9` (RFC 8259 has it; `0e+9` it takes) and numbers a Double cannot hold
        // (`2e450`). What it read, written again, reads back the same.
        switch Result(catching: { () throws(StrictJSON.Failure) in try StrictJSON.parse(configuration) }) {
        case .success(let tree):
            precondition(JSONText.isValid(configuration) || !StrictJSON.unusualNumbers(in: tree).isEmpty,
                         "StrictJSON accepted what Foundation refuses")
            precondition((try? StrictJSON.parse(tree.text)) == tree, "StrictJSON's text does not read back")
        case .failure(.syntax(_, let expected)):
            precondition(!JSONText.isValid(configuration) || expected.contains("surrogate") || expected.contains("key in quotes")
                         || expected.contains("a value") || configuration.utf8.contains(0), "StrictJSON refused what Foundation takes: \(expected)")
        case .failure:
            break
        }
        guard let request = try? AlarmRequest.decode(configuration: configuration) else { return }
        do {
            try request.validate(now: now, timeZone: UTCTimeZone())
        } catch {
            precondition(!error.reason.isEmpty, "a refusal without a reason")
        }
    }
}
