import ReveilleModel
import ReveilleRules
import ReveilleWords
/// Reading a call from what the bus delivered: in Core, beside the rules, because a refusal
/// is worded in the user's language (`AlarmError.worded`).
extension AgentCall {
    /// `read`, its refusal in the user's words: `invalidConfiguration` naming the argument and
    /// what is accepted. Never traps, whatever the input (fuzzed: `make fuzz`).
    package static func decode(method: String, arguments: [Argument]) throws(AlarmError) -> AgentCall {
        try AlarmError.worded { () throws(AlarmRuleError) in try read(method: method, arguments: arguments) }
    }
}
