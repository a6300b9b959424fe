import ArgumentParser
import FoundationEssentials
import ReveilleKit

/// `reveille sounds`: every sound name the agent can ring.
struct Sounds: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sounds",
        abstract: "List the sounds an alarm can ring, with their files.",
        discussion: """
            Names are looked up in ~/.local/share/sounds/reveille, ~/.local/share/sounds, Reveille's \
            bundled sounds, then the desktop's sound theme (GNOME's setting, or REVEILLE_SOUND_THEME), the \
            themes it inherits and freedesktop; the first file with a name wins. Alarm-like sounds are listed first.
            """)

    @Flag(help: "Print a JSON array of {name, path, source}.")
    var json = false

    func run() async throws {
        let sounds = try await AgentConnection.perform { client throws(AlarmError) in try await client.sounds() }
        if json { return try Output.json(sounds) }
        let width = (sounds.map(\.name.count).max() ?? 4) + 2
        Output.line("NAME".padded(to: width) + "SOURCE   FILE")
        for sound in sounds.filter(\.suitedForAlarms) {
            Output.line(sound.name.padded(to: width) + sound.source.padded(to: 9) + sound.path)
        }
        let others = sounds.filter { !$0.suitedForAlarms }
        guard !others.isEmpty else { return }
        Output.line("")
        Output.line("Other sounds of the theme (not meant as alarms):")
        for sound in others {
            Output.line(sound.name.padded(to: width) + sound.source.padded(to: 9) + sound.path)
        }
    }
}

/// `reveille play`: hear a sound before choosing it.
struct Play: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "play", abstract: "Play a sound for a few seconds.")

    @Argument(help: "A sound name (see `reveille sounds`), `default`, or a path to a sound file.")
    var sound: String

    @Option(help: "How long to play it (\(InputParser.acceptedDurations)); at most 60s.")
    var duration = "3s"

    func run() async throws {
        let seconds = try Parse.duration(duration, option: "--duration")
        let name: String = switch Parse.sound(sound) {
        case .default: "default"
        case .named(let text): text
        }
        let path = try await AgentConnection.perform { client throws(AlarmError) in try await client.playSound(name, seconds: seconds) }
        Output.line("Playing \(path) for \(AlarmSummary.relative(min(seconds, 60)).dropFirst(3)).")
    }
}
