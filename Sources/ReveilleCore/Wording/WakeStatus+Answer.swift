import ReveilleRules
import ReveilleWords
extension WakeStatus {
    /// Whether an alarm wakes the machine from suspend, and why not: the one answer `status`,
    /// `show` and `list` give. `optedIn`: the alarm did not opt out (`--no-wake`).
    package func answer(optedIn: Bool) -> (wakes: Bool, reason: String?) {
        guard optedIn else { return (false, L("this alarm does not wake it (--no-wake)")) }
        return blocked == true ? (false, reason) : (true, nil)
    }
}
