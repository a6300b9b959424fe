import ArgumentParser
import Glibc
import ReveilleCore
import ReveilleKit

@main
struct Reveille: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reveille",
        abstract: "Alarms and timers that ring even when no app is open.",
        discussion: "Times are read in the local time zone (honours TZ). Alarm IDs may be shortened to any unique prefix.",
        version: ReveilleVersion.current,
        subcommands: [Add.self, Timer.self, List.self, Show.self, Edit.self, Cancel.self, Stop.self, Snooze.self,
                      Pause.self, Resume.self, Skip.self, Disable.self, Enable.self, Watch.self, Sounds.self, Play.self,
                      Auth.self, Next.self, Status.self])

    /// Runs the command; errors leave with the status `ExitStatus` names, and a usage error
    /// shows the usage of the command that was given, not the root's.
    static func main() async {
        var command: ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            exit(withError: error)
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
        } catch is Declined {
            Glibc.exit(1)
        } catch {
            fail(error, in: type(of: command))
        }
    }

    /// Says what was wrong, with the usage of the command that was given (not the root's).
    private static func fail(_ error: Error, in command: ParsableCommand.Type) -> Never {
        let code = exitCode(for: error)
        guard code.rawValue == 64 else { exit(withError: error) }
        Output.note("Error: \(message(for: error))")
        Output.note("Usage: " + usageString(for: command))
        Output.note("  See '\(usageString(for: command).prefix { $0 != "<" && $0 != "[" }.trimmed()) --help' for more information.")
        Glibc.exit(code.rawValue)
    }
}
