import Foundation
import Testing

/// docs/architecture.md lists each module of Package.swift in one line, and Package.swift
/// keeps the dependencies the page describes: a module added, removed or renamed fails here.
@Suite("The architecture page and Package.swift")
struct ArchitecturePageTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Each target of Package.swift, with the targets it depends on (products of other packages
    /// left out), as SwiftPM reads the manifest (`ModuleGraphTests.targets()`, from `swift package dump-package`).
    static func targets() throws -> [String: Set<String>] {
        let targets = try ModuleGraphTests.targets()
        let names = Set(targets.map(\.name))
        return Dictionary(uniqueKeysWithValues: targets.map { ($0.name, $0.dependencies.intersection(names)) })
    }

    /// The module lines of the page: the first code block after "## Layout", a name and its line.
    static func listedModules() throws -> [String] {
        let page = try String(contentsOf: root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let layout = try #require(page.firstRange(of: "## Layout"))
        let afterLayout = page[layout.upperBound...]
        let open = try #require(afterLayout.firstRange(of: "```\n"))
        let close = try #require(afterLayout[open.upperBound...].firstRange(of: "\n```"))
        return afterLayout[open.upperBound..<close.lowerBound].split(separator: "\n").map { line in
            String(line.prefix { $0 != " " })
        }
    }

    @Test func everyModuleIsListedOnceInOneLine() throws {
        let targets = try Self.targets()
        #expect(targets.count > 40, "Package.swift's targets are read")
        let listed = try Self.listedModules()
        #expect(!listed.contains(""), "each module takes one line: no line continues another")
        #expect(Set(listed).count == listed.count, "no module listed twice: \(listed)")
        #expect(Set(listed).subtracting(targets.keys).sorted() == [], "listed but not in Package.swift")
        #expect(Set(targets.keys).subtracting(listed).sorted() == [], "in Package.swift but not on the page")
    }

    @Test func anAppLinkingReveilleKitLinksNoCore() throws {
        let targets = try Self.targets()
        var reached: Set<String> = [], next = ["ReveilleKit"]
        while let target = next.popLast() {
            for dependency in targets[target] ?? [] where reached.insert(dependency).inserted { next.append(dependency) }
        }
        #expect(reached.contains("ReveilleRules") && reached.contains("ReveilleBus"), "the dependencies are read: \(reached.sorted())")
        #expect(!reached.contains("ReveilleCore"), "ReveilleKit reaches ReveilleCore (the store, gettext, logging): \(reached.sorted())")
    }
}
