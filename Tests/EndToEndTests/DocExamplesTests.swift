import Foundation
import ReveilleCore
import ReveilleRules
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

extension ConsoleTranscript: CustomTestStringConvertible {}

/// Issue 40: the examples in README.md and docs/*.md cannot drift. Every ```console block is
/// run, command after command, against a private agent, and each command must print what the
/// block shows (ConsoleTranscript says how dates relative to now and ids are elided).
@Suite("Documentation examples", .waitsOnItsOwnThread)
struct DocExamplesTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// README.md and every docs/*.md, relative to the repository.
    static let documents: [String] = {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: repository + "/docs")) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }()

    /// Every example that reads; one that does not fails `everyConsoleBlockReads`.
    static func examples() -> [ConsoleTranscript] {
        documents.flatMap { file in
            (try? String(contentsOfFile: repository + "/" + file, encoding: .utf8))
                .flatMap { try? ConsoleTranscript.blocks(in: $0, file: file) } ?? []
        }
    }

    @Test func everyConsoleBlockReads() throws {
        var count = 0
        for file in Self.documents {
            let text = try String(contentsOfFile: Self.repository + "/" + file, encoding: .utf8)
            count += try ConsoleTranscript.blocks(in: text, file: file).count
        }
        let readme = try ConsoleTranscript.blocks(in: String(contentsOfFile: Self.repository + "/README.md", encoding: .utf8), file: "README.md")
        #expect(!readme.isEmpty && count > readme.count, "README.md has \(readme.count) console examples, all documents \(count)")
    }

    /// docs/dbus.md calls only methods the interface has, and names every method and signal it has.
    @Test func theDBusPageNamesEveryMethodAndSignal() throws {
        let page = try String(contentsOfFile: Self.repository + "/docs/dbus.md", encoding: .utf8)
        let xml = try String(contentsOfFile: Self.repository + "/desktop/io.github.reveille.Reveille1.xml", encoding: .utf8)
        let methods = Set(xml.matches(of: /<method name="(\w+)"/).map { String($0.1) })
        let signals = Set(xml.matches(of: /<signal name="(\w+)"/).map { String($0.1) })
        let called = Set(page.matches(of: /\$M\.(\w+)/).map { String($0.1) })
        #expect(!methods.isEmpty && !signals.isEmpty)
        #expect(called.subtracting(methods).isEmpty, "docs/dbus.md calls methods the interface lacks: \(called.subtracting(methods).sorted())")
        #expect(methods.subtracting(called).isEmpty, "docs/dbus.md never shows: \(methods.subtracting(called).sorted())")
        let unnamed = signals.filter { !page.contains("`\($0)(") && !page.contains(" \($0)(") }
        #expect(unnamed.isEmpty, "docs/dbus.md never names the signals \(unnamed.sorted())")
    }

    /// Every command of `reveille` (and of `auth` and `sync`) and every option each takes is
    /// named somewhere in README.md or docs/, as its help names them.
    @Test func theDocsNameEveryCommandAndOption() throws {
        let docs = try Self.documents.map { try String(contentsOfFile: Self.repository + "/" + $0, encoding: .utf8) }.joined(separator: "\n")
        let binaries = try TestSession.findBinaries()
        func help(_ command: [String]) throws -> String {
            let result = try Subprocess.run(binaries + "/reveille", command + ["--help"], environment: ["LANG": "C.UTF-8"])
            try #require(result.status == 0, "reveille \(command.joined(separator: " ")) --help: \(result.stderr)")
            return result.stdout
        }
        func subcommands(_ help: String) -> [String] {
            guard let start = help.range(of: "SUBCOMMANDS:\n") else { return [] }
            return help[start.upperBound...].split(separator: "\n").compactMap { $0.firstMatch(of: /^  ([a-z][a-z-]*)/).map { String($0.1) } }
        }
        var commands = subcommands(try help([])).map { [$0] }
        for group in ["auth", "sync"] { commands += subcommands(try help([group])).map { [group, $0] } }
        #expect(commands.count > 20, "\(commands)")
        for command in commands {
            let named = "reveille " + command.joined(separator: " ")
            // `reveille auth deny APP`, or in a table of commands `auth deny APP`, `skip ID`.
            #expect(docs.contains(named) || docs.contains("`" + command.joined(separator: " ") + " "), "the docs never name `\(named)`")
            let options = Set(try help(command).matches(of: /(--[a-z][a-z-]*)/).map { String($0.1) }).subtracting(["--help", "--version"])
            for option in options.sorted() where !docs.contains(option) {
                Issue.record("the docs never name `\(named) \(option)`")
            }
        }
    }

    @Test(arguments: DocExamplesTests.examples())
    func runsAsDocumented(_ example: ConsoleTranscript) throws {
        let session = try TestSession(audio: .none)
        var environment = session.environment
        // The reader's language is what an example says (`LANG=de_DE.UTF-8 reveille …`), else English.
        for key in environment.keys where key.hasPrefix("LC_") || key == "LANGUAGE" || key == "REVEILLE_LOCALEDIR" {
            environment.removeValue(forKey: key)
        }
        environment["LANG"] = "C.UTF-8"
        let languages = Set(example.steps.compactMap { $0.assignments["LANG"] ?? $0.assignments["LC_ALL"] }).subtracting(["C", "C.UTF-8"])
        if !languages.isEmpty {
            // The binaries read the catalogs from the build tree's .build/locale, as a reader's do.
            let build = URL(fileURLWithPath: session.binaries).resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
            let catalogs = build.appendingPathComponent("locale").path
            try #require(FileManager.default.fileExists(atPath: catalogs + "/de/LC_MESSAGES/reveille.mo"),
                         "\(example.testDescription) speaks \(languages.sorted()); its catalogs come from `make locale` (\(catalogs))")
            for language in languages { environment["LOCPATH"] = try TestLocales.folder(with: language) }
        }
        // An example that begins as a reader's first command does lets the CLI start the agent.
        let cliStartsTheAgent = example.steps.first?.expected.first?.hasPrefix("reveille: no agent was running") == true
        if !cliStartsTheAgent { try session.startAgent(environment: environment.mapValues { Optional($0) }) }
        defer { if cliStartsTheAgent { stopAgentTheCLIStarted(session) } }

        var matcher = TranscriptMatcher()
        for step in example.steps {
            try #require(step.words.first == "reveille",
                         "\(example.testDescription): `$ \(step.line)`: a console example runs reveille; show other programs in a ```sh block")
            let arguments = matcher.substituting(Array(step.words.dropFirst()))
            let result = try Subprocess.run(session.binaries + "/reveille", arguments,
                                            environment: environment.merging(step.assignments) { $1 })
            // As a terminal shows them: what the CLI says about itself comes before its answer.
            var output = (result.stderr + result.stdout).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            while output.last == "" { output.removeLast() }
            var expected = step.expected
            while expected.last == "" { expected.removeLast() }
            guard matcher.matches(expected, output) else {
                Issue.record("""
                    \(example.testDescription): `$ \(step.line)` (exit \(result.status)) printed
                    \(output.joined(separator: "\n"))
                    where the example shows
                    \(expected.joined(separator: "\n"))
                    """)
                return
            }
        }
    }
}

/// Ends the agent the CLI started (the session stops only what it started itself).
private func stopAgentTheCLIStarted(_ session: TestSession) {
    guard let pid = try? session.ownerPID(of: AgentInterface.busName) else { return }
    kill(pid, SIGTERM)
    try? session.waitForName(AgentInterface.busName, owned: false)
}

/// The transcript's reading and matching, in process.
@Suite("Console transcripts")
struct ConsoleTranscriptTests {
    @Test func blocksAreReadWithTheirCommandsAndOutput() throws {
        let markdown = """
            Text.

            ```console
            $ reveille add "fri 18:00" --title 'Drinks out'
            Scheduled alarm f0ac0e49 "Drinks out": rings [..]
            $ TZ=Europe/Berlin reveille next 9:00
            ...
            ```

            - a list item:

              ```console
              $ reveille list
              ```
            ```sh
            $ not read
            ```
            """
        let blocks = try ConsoleTranscript.blocks(in: markdown, file: "X.md")
        #expect(blocks.map(\.testDescription) == ["X.md:3", "X.md:12"])
        #expect(blocks.first?.steps.map(\.words) == [["reveille", "add", "fri 18:00", "--title", "Drinks out"], ["reveille", "next", "9:00"]])
        #expect(blocks.first?.steps.last?.assignments == ["TZ": "Europe/Berlin"])
        #expect(blocks.first?.steps.first?.expected == ["Scheduled alarm f0ac0e49 \"Drinks out\": rings [..]"])
        #expect(blocks.last?.steps.map(\.words) == [["reveille", "list"]])
    }

    @Test func whatNeedsAShellOrIsNotACommandIsRefused() {
        for bad in ["```console\n$ reveille list | head\n```", "```console\n$ reveille stop \"$ID\"\n```",
                    "```console\noutput first\n```", "```console\n$ reveille list\n", "```console\n```"] {
            #expect(throws: ConsoleTranscript.ReadError.self, "\(bad)") { try ConsoleTranscript.blocks(in: bad, file: "X.md") }
        }
    }

    @Test func elisionsMatchWhatVariesAndNothingElse() {
        var matcher = TranscriptMatcher()
        let first = matcher.matches(["Scheduled alarm 67ca9b66 \"Up\": rings [..] 07:00 (in [..])"],
                                    ["Scheduled alarm 3e1f00aa \"Up\": rings 2026-11-28 07:00 (in 9h 01m)"])
        #expect(first && matcher.ids == ["67ca9b66": "3e1f00aa"])
        let cases: [(expected: [String], actual: [String], matches: Bool, why: String)] = [
            (["Scheduled alarm 67ca9b66 \"Up\": rings [..] 07:00 (in [..])"],
             ["Scheduled alarm 3e1f00aa \"Up\": rings 2026-11-28 07:15 (in 9h 16m)"], false, "the time of day is checked"),
            (["Changed alarm 67ca9b66"], ["Changed alarm 3e1f00aa"], true, "an id bound stays bound"),
            (["Changed alarm 67ca9b66"], ["Changed alarm 99999999"], false, "one example id is one real id"),
            (["Changed alarm f0ac0e49"], ["Changed alarm 3e1f00aa"], false, "and one real id one example id"),
            (["a", "...", "z"], ["a", "b", "c", "z"], true, "`...` stands for lines"),
            (["a", "...", "z"], ["a", "z"], true, "or none"),
            (["a", "z"], ["a", "b", "z"], false, "lines are not skipped unless `...` says so"),
            (["a"], ["a", "b"], false, "nor added"),
            (["deadbeef"], ["3e1f00ab"], false, "a word without a digit is text, not an id"),
            (["rings at 07.00"], ["rings at 07:00"], false, "the rest is literal text, not a pattern"),
        ]
        for test in cases {
            var trial = matcher
            #expect(trial.matches(test.expected, test.actual) == test.matches, "\(test.why): \(test.expected) against \(test.actual)")
        }
        #expect(matcher.substituting(["edit", "67ca", "7:15", "0730", "67"]) == ["edit", "3e1f", "7:15", "0730", "67"])
    }
}
