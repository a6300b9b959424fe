import FoundationEssentials
import Logging
@testable import ReveilleAgent
import Testing

/// One log line per entry, whatever a client put in the message.
@Suite("The agent's log lines")
struct AgentLogHandlerTests {
    let time = Date(timeIntervalSince1970: 1_795_000_000)

    @Test func aForgedLineInAClientsTextStaysInsideItsEntry() {
        // A button name sent to PressButton, as the hostile-app trial sent it.
        let message = "PressButton 'evil'\n2026-11-24T00:00:00+0000 critical reveille-agent: forged' refused"
        for journal in [false, true] {
            let line = AgentLogHandler.line(message, level: .notice, label: "reveille-agent", journal: journal, at: time)
            #expect(line.split(separator: "\n", omittingEmptySubsequences: false).count == 2, "one line and its newline: \(line)")
            #expect(line.contains(#"'evil'\n2026-11-24"#), "the newline written as an escape: \(line)")
        }
    }

    @Test func controlCharactersAreWrittenAsEscapes() {
        #expect(AgentLogHandler.escaped("bell\u{7} esc\u{1B}[2J cr\r tab\t del\u{7F} csi\u{9B} ls\u{2028}") ==
                #"bell\u{7} esc\u{1b}[2J cr\r tab\t del\u{7f} csi\u{9b} ls\u{2028}"#)
        #expect(AgentLogHandler.escaped("Réveil ⏰ plain") == "Réveil ⏰ plain", "printable text is left as it is")
    }

    @Test func theJournalGetsThePriorityAndATerminalTheTimeLevelAndLabel() {
        #expect(AgentLogHandler.line("alerting", level: .error, label: "reveille-agent", journal: true, at: time) == "<3>alerting\n")
        let line = AgentLogHandler.line("alerting", level: .info, label: "reveille-agent", journal: false, at: time)
        #expect(line.hasSuffix(" info reveille-agent: alerting\n") && line.hasPrefix("2026-"), "\(line)")
    }

    /// The log as a whole is bounded: a burst, then a rate; what is left out is counted and said
    /// once lines may be written again (a toggled screen saver's name wrote 207 MB in 20 s).
    @Test func theWholeLogIsBoundedAndSaysWhatItLeftOut() {
        var budget = LogBudget(burst: AgentLogHandler.burst, perSecond: AgentLogHandler.perSecond)
        var written = 0
        for _ in 0..<10_000 where budget.admit(at: 100).write { written += 1 }
        #expect(written == Int(AgentLogHandler.burst), "a burst, then nothing more at the same instant")
        #expect(!budget.admit(at: 100.01).write, "less than one line's time later")
        let next = budget.admit(at: 100 + 2 / AgentLogHandler.perSecond)
        #expect(next.write && next.heldBack == 10_000 - Int(AgentLogHandler.burst) + 1, "the next line says how many were left out")
        written = 0
        for _ in 0..<10_000 where budget.admit(at: 200).write { written += 1 }
        #expect(written == Int(AgentLogHandler.burst), "a quiet while refills a burst, no more")
    }
}
