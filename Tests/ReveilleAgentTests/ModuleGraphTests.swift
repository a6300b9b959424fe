import Foundation
import Testing

/// What each module may use is what Package.swift declares, as SwiftPM reads the manifest
/// (`swift package dump-package`), and each file imports what it uses (the compiler checks that:
/// every target builds with `MemberImportVisibility`). No module of the project re-exports
/// another, so a module's imports are its dependencies, not what a re-export brought along.
@Suite("The module graph")
struct ModuleGraphTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    struct Target { var name: String; var type: String; var folder: URL; var dependencies: Set<String> }

    /// The package's targets as SwiftPM reads Package.swift, each with the modules it declares.
    static func targets() throws -> [Target] {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-manifest-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // A scratch folder of its own: the build's is locked while its tests run.
        process.arguments = ["swift", "package", "--package-path", repository.path, "--scratch-path", scratch.path, "dump-package"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "swift package dump-package failed (is swift on PATH?)")
        struct Manifest: Decodable {
            struct Target: Decodable {
                var name: String; var type: String; var path: String?
                var dependencies: [[String: [String?]]]
            }
            var targets: [Target]
        }
        return try JSONDecoder().decode(Manifest.self, from: data).targets.map { target in
            let folder = target.path ?? (target.type == "test" ? "Tests/" : "Sources/") + target.name
            // byName: [name, condition]; target: [name, condition]; product: [name, package, ...].
            let names = target.dependencies.compactMap { $0.values.first?.first ?? nil }
            return Target(name: target.name, type: target.type, folder: repository.appendingPathComponent(folder), dependencies: Set(names))
        }
    }

    /// The modules the Swift files under `folder` import, each with the first file that does.
    static func imports(in folder: URL) throws -> [String: String] {
        var found: [String: String] = [:]
        let paths = (try? FileManager.default.subpathsOfDirectory(atPath: folder.path)) ?? []
        for path in paths.sorted() where path.hasSuffix(".swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
            for match in text.matches(of: /(?m)^(?:@\w+\s+)?(?:(?:public|package|internal)\s+)?import\s+(\w+)/) where found[String(match.1)] == nil {
                found[String(match.1)] = path
            }
        }
        return found
    }

    @Test func everyModuleOfThePackageThatAFileImportsIsDeclared() throws {
        let targets = try Self.targets()
        #expect(targets.count > 30, "the manifest's targets are read")
        let own = Set(targets.map(\.name))
        for target in targets {
            for (module, file) in try Self.imports(in: target.folder) where own.contains(module) && module != target.name {
                #expect(target.dependencies.contains(module),
                        "\(target.name)/\(file) imports \(module), which Package.swift does not name among \(target.name)'s dependencies")
            }
        }
    }

    /// ReveilleKit alone re-exports a module of its own: the model, the public types of its API
    /// (AlarmKit's `Alarm`, `AlarmAttributes` ...), which an app uses with it.
    @Test func noModuleReExportsAnotherOfTheProject() throws {
        let targets = try Self.targets()
        let own = Set(targets.map(\.name))
        for target in targets {
            let folder = target.folder
            let paths = (try? FileManager.default.subpathsOfDirectory(atPath: folder.path)) ?? []
            for path in paths where path.hasSuffix(".swift") {
                let text = try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
                for match in text.matches(of: /(?m)^@_exported\s+(?:(?:public|package)\s+)?import\s+(\w+)/) where own.contains(String(match.1)) {
                    #expect(target.name == "ReveilleKit" && match.1 == "ReveilleModel", "\(target.name)/\(path) re-exports \(match.1)")
                }
            }
        }
    }

    /// The agent's runtime, as NIOCore: its whole closure (what it depends on, and what those
    /// depend on) holds no C module but GLib's, for the loop that is its executor, not the module
    /// of raw system calls, and no package product but swift-log's: its store, history and
    /// catalog come through protocols the composition root fills.
    @Test func theRuntimesClosureHoldsNoCModuleButGLibsLoopAndNoSystemCall() throws {
        let targets = Dictionary(uniqueKeysWithValues: try Self.targets().map { ($0.name, $0) })
        var closure: Set<String> = [], next = ["ReveilleAgentRuntime"]
        while let name = next.popLast() {
            for dependency in targets[name]?.dependencies ?? [] where closure.insert(dependency).inserted { next.append(dependency) }
        }
        #expect(closure.contains("ReveilleLoop") && closure.contains("ReveilleRules"), "the closure is read: \(closure.sorted())")
        let cModules = closure.filter { targets[$0]?.type == "system" }
        #expect(cModules == ["CGLib"], "C modules in the runtime's closure: \(cModules.sorted())")
        #expect(!closure.contains("ReveilleSystem") && !closure.contains("ReveilleCore") && !closure.contains("ReveilleBus"),
                "the runtime reaches \(closure.intersection(["ReveilleSystem", "ReveilleCore", "ReveilleBus"]).sorted())")
        let products = closure.filter { targets[$0] == nil }
        #expect(products == ["Logging"], "package products in the runtime's closure: \(products.sorted())")
    }

    /// The same, as the compiler saw it: the modules the runtime's module was built against
    /// (the dependency file of its emitted module, `.emit-module.d`, in the debug build, made
    /// afresh whenever any of its files changes), whatever reached it. The only C
    /// module map of the project among them is GLib's; no module of system calls, store or bus,
    /// and neither Foundation whole nor Dispatch. (Glibc is among them: FoundationEssentials and
    /// Synchronization are built on it.)
    @Test func theCompilerSawNoCModuleButGLibInTheRuntime() throws {
        let folder = SystemCallPlacementTests.buildFolder.appendingPathComponent("ReveilleAgentRuntime.build")
        let file = folder.appendingPathComponent("ReveilleAgentRuntime.emit-module.d")
        let text = try #require(try? String(contentsOf: file, encoding: .utf8), "the runtime's module's dependency file \(file.path): is the debug build there?")
        let seen = Set(text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\\" }).filter { $0.hasPrefix("/") }.map(String.init))
        let sources = Self.repository.appendingPathComponent("Sources").path + "/"
        let moduleMaps = seen.filter { $0.hasSuffix("/module.modulemap") && $0.hasPrefix(sources) }
            .map { String($0.dropFirst(sources.count).prefix { $0 != "/" }) }
        #expect(moduleMaps == ["CGLib"], "the project's C modules the runtime was compiled against: \(moduleMaps.sorted())")
        let swiftModules = Set(seen.compactMap { path -> String? in
            guard let range = path.range(of: #"[^/]+(?=\.swiftmodule)"#, options: .regularExpression) else { return nil }
            return String(path[range])
        })
        #expect(swiftModules.isSuperset(of: ["ReveilleLoop", "ReveilleRules", "ReveilleWords", "FoundationEssentials"]), "read: \(swiftModules.sorted())")
        let forbidden = swiftModules.intersection(["ReveilleSystem", "ReveilleCore", "ReveilleBus", "SystemPackage", "Foundation", "Dispatch"])
        #expect(forbidden.isEmpty, "the runtime was compiled against \(forbidden.sorted())")
    }
}
