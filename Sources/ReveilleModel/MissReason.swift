import FoundationEssentials

/// Why an occurrence was missed.
public enum MissReason: String, Hashable, Sendable {
    /// Due while nothing could ring it (agent not running, machine suspended).
    case late
    /// It rang until its ring limit without an answer.
    case unanswered
}
