import ArgumentParser

@main
struct Reveille: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reveille",
        abstract: "Alarms and timers that ring even when no app is open.",
        discussion: "Times are read in the local time zone (honours TZ). Alarm IDs may be shortened to any unique prefix.",
        subcommands: [Add.self, Timer.self, List.self, Show.self, Cancel.self, Stop.self, Snooze.self,
                      Pause.self, Resume.self, Watch.self, Sounds.self, Play.self, Auth.self, Next.self, Status.self])
}
