import ArgumentParser
import Glibc
import ReveilleCore
import ReveilleKit
import ReveilleRules
import ReveilleWords

@main
struct Reveille: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reveille",
        abstract: L("Alarms and timers that ring even when no app is open."),
        discussion: L("Times are read in the local time zone (honours TZ). Alarm IDs may be shortened to any unique prefix."),
        version: ReveilleVersion.current,
        subcommands: [Add.self, Timer.self, List.self, Show.self, Edit.self, Cancel.self, Stop.self, Snooze.self,
                      Pause.self, Resume.self, Skip.self, Unskip.self, Disable.self, Enable.self, Watch.self, Sounds.self, Play.self,
                      Auth.self, Next.self, Status.self, History.self, Export.self, Import.self, Sync.self, Settings.self])

    /// Runs the command; errors leave with the status `ExitStatus` names, and a usage error
    /// shows the usage of the command that was given, not the root's.
    static func main() async {
        // Before any help text is built: the commands' texts are read in the user's language.
        Localization.setUp()
        var command: ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            guard exitCode(for: error).rawValue == 64 else { exit(withError: error) }
            sayUsageError(usageMessage(for: error, arguments: Array(CommandLine.arguments.dropFirst())))
        }
        do {
            if var asynchronous = command as? AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch let error as AlarmError {
            Output.note("reveille: \(error.reason)")
            Glibc.exit(ExitStatus.of(error))
        } catch let error as InputError {
            fail(ValidationError("\(error)"), in: type(of: command))
        } catch let error as FileFailure {
            Output.note(L("Error: %@", error.message))
            Glibc.exit(FileFailure.status)
        } catch is Declined {
            Glibc.exit(1)
        } catch {
            fail(error, in: type(of: command))
        }
    }

    /// The parser's message for a usage error, except where it misread a negative length as
    /// an option (`timer -5m`: "Missing expected argument"): that is said in words.
    static func usageMessage(for error: Error, arguments: [String]) -> String {
        let message = fullMessage(for: error)
        // Before `--`, a word like -5m or -0.5 is no option of reveille's (none is a digit); after
        // an option it is that option's value (the options that take lengths read it as theirs).
        let words = Array(arguments.prefix(while: { $0 != "--" }))
        guard let negative = words.indices.first(where: { index in
            words[index].wholeMatch(of: /-[0-9.][0-9a-zA-Z.: ]*/) != nil && (index == 0 || !words[index - 1].hasPrefix("-"))
        }).map({ words[$0] }) else { return message }
        let rest = message.split(separator: "\n", omittingEmptySubsequences: false).dropFirst()
        return (["Error: " + InputParser.notPositive(negative)] + rest).joined(separator: "\n")
    }

    /// Says what was wrong, with the usage of the command that was given (not the root's).
    private static func fail(_ error: Error, in command: ParsableCommand.Type) -> Never {
        let status = exitCode(for: error).rawValue
        guard status == 64 else {
            // Said here, escaped, rather than by the argument parser, which prints a message
            // (that may quote a path or a title) as it is.
            let text = message(for: error)
            guard status != 0, !text.isEmpty else { exit(withError: error) }
            Output.note(L("Error: %@", text))
            Glibc.exit(status)
        }
        let usage = usageString(for: command)
        sayUsageError("""
            Error: \(message(for: error))
            Usage: \(usage)
              See '\(usage.prefix { $0 != "<" && $0 != "[" }.trimmed()) --help' for more information.
            """)
    }

    /// Writes a usage error (the argument parser's layout) in the user's language, and exits
    /// with 64. The parser words its own lines in English; they are translated line by line.
    private static func sayUsageError(_ message: String) -> Never {
        for line in message.split(separator: "\n", omittingEmptySubsequences: false) {
            let text = String(line)
            if let rest = text.wholeMatch(of: /Error: (.*)/)?.1 {
                Output.note(L("Error: %@", String(rest)))
            } else if let rest = text.wholeMatch(of: /Usage: (.*)/)?.1 {
                Output.note(L("Usage: %@", String(rest)))
            } else if let rest = text.wholeMatch(of: /Help: (.*)/)?.1 {
                Output.note(L("Help: %@", String(rest)))
            } else if let command = text.wholeMatch(of: /\s\sSee '(.*) --help' for more information\./)?.1 {
                Output.note("  " + L("See '%@ --help' for more information.", String(command)))
            } else {
                Output.note(text)
            }
        }
        Glibc.exit(64)
    }
}
