import ArgumentParser
import FoundationEssentials
import ReveilleCore
import ReveilleKit
import ReveilleRules
import ReveilleWords

/// `reveille sounds`: every sound name the agent can ring.
struct Sounds: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sounds",
        abstract: L("List the sounds an alarm can ring, with their files."),
        discussion: L("Names are looked up in ~/.local/share/sounds/reveille, ~/.local/share/sounds, Reveille's bundled sounds, then the desktop's sound theme (GNOME's setting, or REVEILLE_SOUND_THEME), the themes it inherits and freedesktop; the first file with a name wins. Alarm-like sounds are listed first."))

    @Flag(help: ArgumentHelp(L("Print a JSON array of {name, path, source} ({name, description} with --outputs).")))
    var json = false

    @Flag(help: ArgumentHelp(L("List the sound outputs instead, by the name the ringOn setting takes and their description.")))
    var outputs = false

    func run() async throws {
        if outputs { return try await listOutputs() }
        let sounds = try await AgentConnection.perform { client async throws(AlarmError) in try await client.sounds() }
        if json { return try Output.json(sounds) }
        let header = [L("NAME"), L("SOURCE"), L("FILE")]
        let alarms = sounds.filter(\.suitedForAlarms), others = sounds.filter { !$0.suitedForAlarms }
        // One table for both groups, so that their columns line up.
        let lines = Table.lines([header] + (alarms + others).map { [$0.name, $0.source, $0.path] })
        lines.prefix(1 + alarms.count).forEach(Output.line)
        guard !others.isEmpty else { return }
        Output.line("")
        Output.line(L("Other sounds of the theme (not meant as alarms):"))
        lines.dropFirst(1 + alarms.count).forEach(Output.line)
    }

    private func listOutputs() async throws {
        let outputs = try await AgentConnection.perform { client async throws(AlarmError) in try await client.outputs() }
        if json { return try Output.json(outputs) }
        Table.lines([[L("NAME"), L("DESCRIPTION")]] + outputs.map { [$0.name, $0.description] }).forEach(Output.line)
    }
}

/// `reveille play`: hear a sound before choosing it.
struct Play: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "play", abstract: L("Play a sound for a few seconds."))

    @Argument(help: ArgumentHelp(L("A sound name (see `reveille sounds`), `default`, or a path to a sound file.")))
    var sound: String

    @Option(help: ArgumentHelp(L("How long to play it (%@); at most 60s.", InputParser.acceptedDurations)))
    var duration = "3s"

    func run() async throws {
        let seconds = try Parse.duration(duration, option: "--duration", within: DurationRange(shortest: nil, longest: 60))
        let name: String = switch Parse.sound(sound) {
        case .default: "default"
        case .named(let text): text
        }
        let path = try await AgentConnection.perform { client async throws(AlarmError) in try await client.playSound(name, seconds: seconds) }
        Output.line(L("Playing %@ for %@.", path, AlarmSummary.length(min(seconds, 60))))
    }
}
