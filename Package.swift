// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "Reveille",
    products: [
        .library(name: "ReveilleKit", targets: ["ReveilleKit"]),
        .executable(name: "reveille", targets: ["reveille"]),
        .executable(name: "reveille-agent", targets: ["reveille-agent"]),
        .executable(name: "reveille-wake-helper", targets: ["reveille-wake-helper"]),
        .executable(name: "reveille-alert", targets: ["reveille-alert"]),
        .executable(name: "reveille-app", targets: ["reveille-app"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
    ],
    targets: [
        // System libraries (C modules), each used through a thin Swift wrapper of its own concern.
        .systemLibrary(name: "CGLib", pkgConfig: "gio-unix-2.0",
                       providers: [.apt(["libglib2.0-dev"])]),
        .systemLibrary(name: "CPulse", pkgConfig: "libpulse-mainloop-glib",
                       providers: [.apt(["libpulse-dev"])]),
        .systemLibrary(name: "CLinux"), // timerfd, posix_spawn flags
        .systemLibrary(name: "CGettext"), // glibc's gettext
        .systemLibrary(name: "CSndfile", pkgConfig: "sndfile",
                       providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CNotify", pkgConfig: "libnotify",
                       providers: [.apt(["libnotify-dev"])]),
        // libical's headers only: ICalParser opens the library itself (dlopen) when a calendar is read.
        .systemLibrary(name: "CICal"),
        .systemLibrary(name: "CGtk", pkgConfig: "gtk4-x11",
                       providers: [.apt(["libgtk-4-dev"])]),
        // libadwaita 1.2 (Debian 12; 1.7 in Debian 13, used through 1.2's API only): the app's
        // platform style, dark and high contrast as the desktop sets them.
        .systemLibrary(name: "CAdwaita", pkgConfig: "libadwaita-1",
                       providers: [.apt(["libadwaita-1-dev"])]),
        // Sync's libraries, headers only (libsoup-3.0-dev, libsecret-1-dev): HTTPClient and SecretStore open
        // them (dlopen) when sync is set up; a pkgConfig here would link them into every start of the agent.
        .systemLibrary(name: "CSoup"),
        .systemLibrary(name: "CSecret"),

        // The public types apps use (AlarmKit's names): what ReveilleKit re-exports, and nothing else.
        .target(name: "ReveilleModel"),
        // The rules as values: the engine, state machine, schedule math, listing, parsing, the
        // wire's types. Imports only the model (no files, no gettext, no logging); its errors
        // carry data, worded in the user's language by Core.
        .target(name: "ReveilleRules", dependencies: ["ReveilleModel"]),
        // Every raw system call, in one file as swift-system keeps them: typed, EINTR retried, `Errno` thrown.
        .target(name: "ReveilleSystem", dependencies: ["CLinux", .product(name: "SystemPackage", package: "swift-system")]),
        // The rules' refusals and every message in the person's words, through a catalog the
        // program installs (gettext's, from Core); no C module.
        .target(name: "ReveilleWords", dependencies: ["ReveilleModel", "ReveilleRules"]),
        // The GLib main loop's thread as a Swift global actor (the runtime's executor); GLib alone.
        .target(name: "ReveilleLoop", dependencies: ["CGLib"]),
        // Beside the rules: the store, locks, paths, threads, gettext's catalog.
        .target(name: "ReveilleCore", dependencies: ["ReveilleModel",
            "ReveilleRules", "ReveilleWords", "ReveilleSystem", "CGettext",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // The system's time zones, read by GLib, as the rules' TimeZoneRules.
        .target(name: "ReveilleTimeZone", dependencies: ["ReveilleRules", "ReveilleSystem", "CGLib", .product(name: "SystemPackage", package: "swift-system")]),
        // Alarms as iCalendar and back (libical behind ICalParser): export, import and sync's mapping;
        // and CalDAV's multistatus answers (GLib's GMarkup), read as the server sends them.
        .target(name: "ReveilleCalendar", dependencies: ["ReveilleRules", "ReveilleModel", "ReveilleCore", "ReveilleSystem", "CICal", "CGLib"]),
        // The GLib main loop as a Swift global actor, and GDBus behind a typed wrapper.
        .target(name: "ReveilleBus", dependencies: ["CGLib", "ReveilleLoop", "ReveilleSystem", .product(name: "SystemPackage", package: "swift-system")]),
        // The agent's runtime (NIOCore's place): AgentRuntime, its events, the follower protocols and the pure
        // machines (presentation, sound, alert window, wake-up). No C module but GLib's loop (its executor), no system
        // call: its store and history come through protocols the composition root fills, its words through ReveilleWords' catalog.
        .target(name: "ReveilleAgentRuntime", dependencies: ["ReveilleModel", "ReveilleRules", "ReveilleWords", "ReveilleLoop", .product(name: "Logging", package: "swift-log")]),
        // The agent's adapters, one per outside world, each on the runtime (NIOPosix's place):
        // notifications (libnotify on its own thread, the queue, Do Not Disturb and reach watches);
        .target(name: "ReveilleNotifications", dependencies: ["ReveilleLoop", "CGLib", "ReveilleCore", "ReveilleModel", "ReveilleRules", "ReveilleAgentRuntime", "ReveilleBus", "CNotify",
                                                             .product(name: "Logging", package: "swift-log")]),
        // sound (libpulse, libsndfile, the sound library and theme, the sink guard);
        .target(name: "ReveilleSound", dependencies: ["ReveilleWords", "ReveilleLoop", "CGLib", "ReveilleModel", "ReveilleRules", "ReveilleSystem", "ReveilleAgentRuntime", "ReveilleCore", "ReveilleBus", "CPulse", "CSndfile",
                                                     .product(name: "Logging", package: "swift-log"),
                                                     .product(name: "SystemPackage", package: "swift-system")]),
        // sync (libsoup, libsecret, CalDAV, the sync follower);
        .target(name: "ReveilleSync", dependencies: ["ReveilleLoop", "ReveilleWords", "CGLib", "ReveilleCore", "ReveilleModel", "ReveilleRules", "ReveilleAgentRuntime", "ReveilleCalendar", "ReveilleTimeZone", "ReveilleBus",
                                                    "ReveilleSystem", "CSoup", "CSecret",
                                                    .product(name: "Logging", package: "swift-log"),
                                                    .product(name: "SystemPackage", package: "swift-system")]),
        // the panel item (StatusNotifierItem and its dbusmenu);
        .target(name: "ReveillePanel", dependencies: ["ReveilleLoop", "ReveilleWords", "ReveilleCore", "ReveilleModel", "ReveilleRules", "ReveilleAgentRuntime", "ReveilleBus", .product(name: "Logging", package: "swift-log")]),
        // the alert window's launcher (reveille-alert, one process per ringing alarm);
        .target(name: "ReveilleAlertWindow", dependencies: ["ReveilleWords", "ReveilleLoop", "CGLib", "ReveilleCore", "ReveilleModel", "ReveilleRules", "ReveilleAgentRuntime", "ReveilleSystem", "ReveilleBus",
                                                           .product(name: "Logging", package: "swift-log")]),
        // the wake-up from suspend (logind, the wake helper, the kernel's alarm timer);
        .target(name: "ReveilleWakeUp", dependencies: ["ReveilleWords", "ReveilleLoop", "ReveilleCore", "ReveilleModel", "ReveilleRules", "ReveilleSystem", "ReveilleAgentRuntime", "ReveilleBus", .product(name: "Logging", package: "swift-log"),
                                                      .product(name: "SystemPackage", package: "swift-system")]),
        // the media player (MPRIS, other players paused) and the session's lock.
        .target(name: "ReveilleMedia", dependencies: ["ReveilleWords", "ReveilleLoop", "ReveilleCore", "ReveilleModel", "ReveilleRules", "ReveilleAgentRuntime", "ReveilleBus", "ReveilleSystem",
                                                     .product(name: "Logging", package: "swift-log")]),
        // The composition root: Agent.assemble, start-up and shutdown, the D-Bus service, its clients and gate.
        .target(name: "ReveilleAgent", dependencies: ["ReveilleLoop", "CGLib", "ReveilleModel", "ReveilleRules", "ReveilleSystem", 
            "ReveilleAgentRuntime", "ReveilleNotifications", "ReveilleSound", "ReveilleSync", "ReveillePanel", "ReveilleAlertWindow",
            "ReveilleWakeUp", "ReveilleMedia", "ReveilleCore", "ReveilleTimeZone", "ReveilleBus", "ReveilleCalendar", "CLinux",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // The privileged wake helper's logic: argument rules, the RTC, its system-bus service.
        .target(name: "ReveilleWake", dependencies: ["ReveilleLoop", "ReveilleRules", 
            "ReveilleCore", "ReveilleBus",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // AlarmKit's client API, speaking D-Bus to the agent.
        // Its public API is the model and the manager; the rest is `package`, for the CLI.
        // Not Core: an app links no store, gettext or logging.
        .target(name: "ReveilleKit", dependencies: ["ReveilleLoop", "ReveilleModel", "ReveilleRules", "ReveilleSystem", "ReveilleTimeZone", "ReveilleBus"]),

        .executableTarget(name: "reveille", dependencies: ["ReveilleLoop", "ReveilleWords", "ReveilleModel", "ReveilleRules", "ReveilleSystem", 
            "ReveilleKit", "ReveilleCore", "ReveilleCalendar", "ReveilleTimeZone", "ReveilleBus", "CLinux",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        .executableTarget(name: "reveille-agent", dependencies: ["ReveilleSystem", "ReveilleWords", "ReveilleCore", "ReveilleModel", "ReveilleRules", 
            "ReveilleAgent",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "reveille-wake-helper", dependencies: ["ReveilleCore", "ReveilleModel", 
            "ReveilleWake",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // The windows' GTK layer, the one place GTK's and libadwaita's C APIs are used: typed
        // widget handles, signals as Swift closures, the application, libadwaita's style.
        .target(name: "ReveilleGtk", dependencies: ["ReveilleWords", "ReveilleLoop", "ReveilleRules", "ReveilleSystem", "ReveilleCore", "ReveilleBus", "CGtk", "CAdwaita"]),
        // The alert window (GTK 4), its own process: the agent starts it while an alarm rings unseen.
        .executableTarget(name: "reveille-alert", dependencies: ["ReveilleWords", "ReveilleLoop", "ReveilleModel", "ReveilleRules", "ReveilleSystem", "ReveilleKit", "ReveilleCore", "ReveilleBus", "ReveilleGtk"]),
        // The app (GTK 4): the person's window onto their alarms and timers, a client of the agent
        // as the CLI is. Its widgets are GtkBuilder files in Resources, compiled into it (AppResources.swift, scripts/app-resources).
        .executableTarget(name: "reveille-app", dependencies: ["ReveilleSystem", "ReveilleLoop", "ReveilleWords", "ReveilleModel", "ReveilleRules", "ReveilleKit", "ReveilleCore", "ReveilleTimeZone", "ReveilleCalendar",
                                                               "ReveilleBus", "ReveilleGtk", .product(name: "SystemPackage", package: "swift-system")],
                          exclude: ["Resources"]),
        // A recording org.freedesktop.Notifications server for the end-to-end tests.
        .executableTarget(name: "reveille-test-notifyd", dependencies: ["ReveilleLoop", "ReveilleBus"],
                          path: "Tests/Support/reveille-test-notifyd"),

        // Swift Testing traits the tests that wait for processes share (a thread of their own each).
        .target(name: "ReveilleTestTraits", path: "Tests/Support/ReveilleTestTraits"),
        // What tests of several modules share: the virtual clock, the recording notification and sound servers.
        .target(name: "ReveilleAgentTesting", dependencies: ["CGLib", "ReveilleAgentRuntime", "ReveilleLoop", "ReveilleModel", "ReveilleRules", "ReveilleSound", "ReveilleTimeZone",
                                                            .product(name: "SystemPackage", package: "swift-system")],
                path: "Tests/Support/ReveilleAgentTesting"),
        // The private session (bus, notification server, PulseAudio) for end-to-end tests and the benchmark.
        .target(name: "ReveilleTestSupport", dependencies: ["ReveilleModel", "ReveilleRules", "ReveilleCore", "ReveilleSystem", "CLinux"],
                path: "Tests/Support/ReveilleTestSupport"),
        // The README's walk-through: a cooking timer after AlarmKit's sample.
        .executableTarget(name: "reveille-example-cooking", dependencies: ["ReveilleKit"],
                          path: "Examples/CookingTimer"),
        // AlarmKit code as Apple's documentation and WWDC25 write it, ported by changing the
        // import line, colours and intents only.
        // Compiled as Xcode 26 compiles a new app: the main actor is the default isolation.
        .executableTarget(name: "reveille-example-alarmkit", dependencies: ["ReveilleKit"],
                          path: "Examples/AlarmKitPort", swiftSettings: [.defaultIsolation(MainActor.self)]),
        // An app on ReveilleKit, driven by the end-to-end tests.
        .executableTarget(name: "reveille-test-app", dependencies: ["ReveilleLoop", "ReveilleWords", "ReveilleRules", "ReveilleSystem", "ReveilleKit", "ReveilleCore", "ReveilleBus"],
                          path: "Tests/Support/reveille-test-app"),
        .executableTarget(name: "reveille-bench", dependencies: ["ReveilleLoop", "ReveilleRules", "ReveilleSystem", "ReveilleTestSupport", "ReveilleCore", "ReveilleBus",
                                                                .product(name: "SystemPackage", package: "swift-system")],
                          path: "Benchmarks/reveille-bench"),
        // The bench's floor: a bare timerfd + libnotify program in C, measured in the same run.
        .executableTarget(name: "reveille-bench-bare", dependencies: ["CNotify"], path: "Benchmarks/reveille-bench-bare"),
        // `make run` without a desktop session: the alarm on a private demo desktop, shown and measured.
        .executableTarget(name: "reveille-demo", dependencies: ["ReveilleRules", "ReveilleTestSupport", "ReveilleCore"],
                          path: "Tests/Support/reveille-demo"),

        // libFuzzer targets (`make fuzz`): built with -sanitize=fuzzer -DFUZZING they are fuzzers;
        // an ordinary build replays a corpus through the same function.
        .target(name: "ReveilleFuzzSupport", path: "Fuzz/Support"),
        .executableTarget(name: "reveille-fuzz-request", dependencies: ["ReveilleModel", "ReveilleRules", "ReveilleCore", "ReveilleFuzzSupport"],
                          path: "Fuzz/reveille-fuzz-request"),
        .executableTarget(name: "reveille-fuzz-store", dependencies: ["ReveilleRules", "ReveilleCore", "ReveilleFuzzSupport"],
                          path: "Fuzz/reveille-fuzz-store"),
        .executableTarget(name: "reveille-fuzz-time", dependencies: ["ReveilleRules", "ReveilleCore", "ReveilleTimeZone", "ReveilleFuzzSupport"],
                          path: "Fuzz/reveille-fuzz-time"),
        .executableTarget(name: "reveille-fuzz-ical", dependencies: ["ReveilleModel", "ReveilleRules", "ReveilleCalendar", "ReveilleCore", "ReveilleFuzzSupport"],
                          path: "Fuzz/reveille-fuzz-ical"),
        .executableTarget(name: "reveille-fuzz-multistatus", dependencies: ["ReveilleCalendar", "ReveilleFuzzSupport"],
                          path: "Fuzz/reveille-fuzz-multistatus"),
        .executableTarget(name: "reveille-fuzz-dbusmenu", dependencies: ["ReveillePanel", "ReveilleBus", "ReveilleFuzzSupport"],
                          path: "Fuzz/reveille-fuzz-dbusmenu"),
        .executableTarget(name: "reveille-fuzz-sync", dependencies: ["ReveilleModel", "ReveilleRules", "ReveilleCalendar", "ReveilleCore", "ReveilleFuzzSupport"],
                          path: "Fuzz/reveille-fuzz-sync"),
        .executableTarget(name: "reveille-fuzz-settings", dependencies: ["ReveilleModel", "ReveilleRules", "ReveilleCore", "ReveilleFuzzSupport"],
                          path: "Fuzz/reveille-fuzz-settings"),
        .executableTarget(name: "reveille-fuzz-flatpak-info", dependencies: ["ReveilleBus", "ReveilleFuzzSupport"],
                          path: "Fuzz/reveille-fuzz-flatpak-info"),
        .executableTarget(name: "reveille-fuzz-budget", dependencies: ["ReveilleBus", "ReveilleFuzzSupport"],
                          path: "Fuzz/reveille-fuzz-budget"),
        .executableTarget(name: "reveille-fuzz-restore", dependencies: ["ReveilleRules", "ReveilleModel", "ReveilleFuzzSupport"],
                          path: "Fuzz/reveille-fuzz-restore"),
        .executableTarget(name: "reveille-fuzz-clock", dependencies: ["ReveilleCore", "ReveilleRules", "ReveilleModel", "ReveilleFuzzSupport"],
                          path: "Fuzz/reveille-fuzz-clock"),

        // One test target per module, named after it; ReveilleAgentTesting is what several share.
        .testTarget(name: "ReveilleCoreTests", dependencies: ["ReveilleAgentTesting", "ReveilleCore", "ReveilleModel", "ReveilleRules", "ReveilleTimeZone", "ReveilleWords", .product(name: "Logging", package: "swift-log"), .product(name: "SystemPackage", package: "swift-system")]),
        .testTarget(name: "ReveilleWordsTests", dependencies: ["ReveilleWords"]),
        .testTarget(name: "ReveilleTimeZoneTests", dependencies: ["ReveilleAgentTesting", "ReveilleCore", "ReveilleTimeZone"]),
        .testTarget(name: "ReveilleCalendarTests", dependencies: ["ReveilleCalendar", "ReveilleCore", "ReveilleModel", "ReveilleRules", "ReveilleTimeZone"]),
        // The composition root's tests (ReveilleKit: the client's encoding of a call, fed to the service).
        .testTarget(name: "ReveilleAgentTests", dependencies: ["ReveilleAgent", "ReveilleAgentRuntime", "ReveilleAgentTesting", "ReveilleBus", "ReveilleCalendar", "ReveilleCore", "ReveilleKit", "ReveilleLoop", "ReveilleModel", "ReveilleNotifications", "ReveillePanel", "ReveilleRules", "ReveilleSound", "ReveilleTestSupport", "ReveilleTestTraits", "ReveilleTimeZone", .product(name: "Logging", package: "swift-log"), .product(name: "SystemPackage", package: "swift-system")]),
        // The CLI's parsing and option rules, in process (the executable's module, @testable).
        .testTarget(name: "ReveilleCLITests", dependencies: ["ReveilleCalendar", "ReveilleCore", "ReveilleModel", "ReveilleRules", 
            "reveille", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // What the app's window says of an alarm, in process (the executable's module, @testable).
        .testTarget(name: "ReveilleAppTests", dependencies: ["ReveilleCalendar", "ReveilleCore", "ReveilleKit", "ReveilleModel", "ReveilleRules", "reveille-app", "ReveilleTimeZone", .product(name: "SystemPackage", package: "swift-system")]),
        .testTarget(name: "ReveilleRulesTests", dependencies: ["ReveilleAgentTesting", "ReveilleCore", "ReveilleModel", "ReveilleRules", "ReveilleTimeZone", "ReveilleWords", .product(name: "Logging", package: "swift-log"), .product(name: "SystemPackage", package: "swift-system")]),
        .testTarget(name: "ReveilleSystemTests", dependencies: ["ReveilleSystem", .product(name: "SystemPackage", package: "swift-system")]),
        .testTarget(name: "ReveilleAgentRuntimeTests", dependencies: ["ReveilleAgent", "ReveilleAgentRuntime", "ReveilleAgentTesting", "ReveilleAlertWindow", "ReveilleBus", "ReveilleCore", "ReveilleLoop", "ReveilleModel", "ReveilleNotifications", "ReveilleRules", "ReveilleSound", "ReveilleSystem", "ReveilleTimeZone", "ReveilleWake", .product(name: "Logging", package: "swift-log"), .product(name: "SystemPackage", package: "swift-system")]),
        .testTarget(name: "ReveilleSoundTests", dependencies: ["ReveilleAgentRuntime", "ReveilleBus", "ReveilleCore", "ReveilleLoop", "ReveilleModel", "ReveilleRules", "ReveilleSound", "ReveilleTestSupport"]),
        .testTarget(name: "ReveilleSyncTests", dependencies: ["ReveilleAgent", "ReveilleAgentRuntime", "ReveilleAgentTesting", "ReveilleBus", "ReveilleCalendar", "ReveilleCore", "ReveilleLoop", "ReveilleModel", "ReveilleRules", "ReveilleSync", "ReveilleTestSupport", "ReveilleTestTraits", "ReveilleTimeZone", .product(name: "Logging", package: "swift-log"), .product(name: "SystemPackage", package: "swift-system")]),
        .testTarget(name: "ReveilleBusTests", dependencies: ["ReveilleAgentRuntime", "ReveilleBus", "ReveilleLoop", "ReveilleModel", "ReveillePanel", "ReveilleRules", "ReveilleTestSupport", "ReveilleTestTraits"]),
        .testTarget(name: "ReveillePanelTests", dependencies: ["ReveilleAgent", "ReveilleAgentRuntime", "ReveilleAgentTesting", "ReveilleBus", "ReveilleCore", "ReveilleLoop", "ReveilleModel", "ReveillePanel", "ReveilleRules", "ReveilleTestSupport", "ReveilleTestTraits", "ReveilleTimeZone", .product(name: "Logging", package: "swift-log"), .product(name: "SystemPackage", package: "swift-system")]),
        .testTarget(name: "ReveilleNotificationsTests", dependencies: ["ReveilleAgentRuntime", "ReveilleNotifications"]),
        .testTarget(name: "ReveilleMediaTests", dependencies: ["ReveilleAgentRuntime", "ReveilleBus", "ReveilleCore", "ReveilleMedia", "ReveilleModel", "ReveilleRules", "ReveilleTimeZone"]),
        .testTarget(name: "EndToEndTests", dependencies: ["ReveilleModel", "ReveilleRules", "ReveilleSystem", 
            "ReveilleCore", "ReveilleBus", "ReveilleTimeZone", "ReveilleTestSupport", "ReveilleTestTraits",
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
    ]
)

// Every module a file uses is imported by that file (SE-0444): a member reached through another
// import no longer compiles, so the imports say what each file depends on.
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility")]
}
