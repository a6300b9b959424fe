import FoundationEssentials
import Glibc
import ReveilleRules
import ReveilleSystem
import SystemPackage

/// The zone a localtime file (`/etc/localtime`) holds, whether it is a link into the tz
/// database (as timedatectl writes it) or a regular file, a copy of a zone's TZif data (as
/// container images, some installers and `cp /usr/share/zoneinfo/... /etc/localtime` leave it).
package enum LocaltimeFile {
    /// The largest file read as a zone: the tz database's files are a few KiB.
    package static let maximumBytes = 256 << 10

    /// The zone at `path`, named where the tz database has it, or `nil` when `path` holds no
    /// zone (missing, unreadable, not TZif data, over `maximumBytes`, or being rewritten):
    /// - a link whose target lies under a `zoneinfo/` folder: the zone it names;
    /// - otherwise its contents: the zone of `zoneinfo` whose file has the same bytes (`hint`,
    ///   such as /etc/timezone's name, first, then the zones of zone1970.tab, then any other);
    ///   a file found nowhere (a zone compiled by hand) gives the rules of its POSIX TZ footer.
    package static func zone(at path: String, zoneinfo: String = "/usr/share/zoneinfo", hint: String? = nil) -> GLibTimeZone? {
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path),
           let range = target.firstRange(of: "zoneinfo/"),
           let zone = GLibTimeZone(identifier: String(target[range.upperBound...])) {
            return zone
        }
        guard let bytes = contents(at: path) else { return nil }
        if let name = name(of: bytes, in: zoneinfo, hint: hint), let zone = GLibTimeZone(identifier: name) {
            return zone
        }
        return footer(bytes).flatMap(GLibTimeZone.init(identifier:))
    }

    /// The tz database's folder: `TZDIR`, as GLib and glibc read it, else /usr/share/zoneinfo.
    package static func zoneinfo(_ environment: [String: String]) -> String {
        environment["TZDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/share/zoneinfo"
    }

    /// The zone name Debian keeps in /etc/timezone: a hint for a regular-file localtime, and
    /// the zone when there is no localtime.
    package static var etcTimezone: String? {
        (try? String(contentsOfFile: "/etc/timezone", encoding: .utf8)).map { $0.trimmed() }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The bytes of `path` (through links) when they are TZif data of at most `maximumBytes`.
    package static func contents(at path: String) -> [UInt8]? {
        guard let size = size(of: path), (44...maximumBytes).contains(size),
              let data = FileManager.default.contents(atPath: path) else { return nil }
        let bytes = [UInt8](data)
        return bytes.starts(with: Array("TZif".utf8)) && bytes.count <= maximumBytes ? bytes : nil
    }

    /// The name under `zoneinfo` of the zone whose file holds exactly `bytes`.
    static func name(of bytes: [UInt8], in zoneinfo: String, hint: String?) -> String? {
        let files = FileManager.default
        func matches(_ name: String) -> Bool {
            let path = zoneinfo + "/" + name
            guard size(of: path) == bytes.count else { return false }
            return contents(at: path) == bytes
        }
        let listed = ((try? String(contentsOfFile: zoneinfo + "/zone1970.tab", encoding: .utf8)) ?? "")
            .split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { line in line.split(separator: "\t").dropFirst(2).first.map(String.init) }
        if let found = ([hint].compactMap { $0 } + listed).first(where: matches) { return found }
        // Every other zone (links such as US/Eastern, Etc/GMT+5). Zone names start with a capital:
        // this leaves out the posix/ and right/ copies, localtime, posixrules and the tables.
        func walk(_ folder: String, depth: Int) -> String? {
            for entry in ((try? files.contentsOfDirectory(atPath: zoneinfo + "/" + folder)) ?? []).sorted()
            where entry.first?.isUppercase == true && entry != "Factory" {
                let name = folder.isEmpty ? entry : folder + "/" + entry
                if isDirectory(zoneinfo + "/" + name) {
                    if depth < 3, let found = walk(name, depth: depth + 1) { return found }
                } else if matches(name) {
                    return name
                }
            }
            return nil
        }
        return walk("", depth: 0)
    }

    private static func isDirectory(_ path: String) -> Bool {
        (try? FilePath(path).status().kind) == .directory
    }

    /// The size of the regular file at `path` (through links), or `nil`.
    private static func size(of path: String) -> Int? {
        guard let status = try? FilePath(path).status(), status.kind == .regular else { return nil }
        return status.size
    }

    /// The POSIX TZ rule a TZif file of version 2 or later ends with, between newlines
    /// (`CET-1CEST,M3.5.0,M10.5.0/3`): the zone's rules after its last listed transition.
    static func footer(_ bytes: [UInt8]) -> String? {
        guard bytes.count > 6, bytes[4] >= UInt8(ascii: "2"), bytes.last == UInt8(ascii: "\n") else { return nil }
        let body = bytes.dropLast()
        guard let start = body.lastIndex(of: UInt8(ascii: "\n")) else { return nil }
        let rule = body[(start + 1)...]
        guard !rule.isEmpty, rule.allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
        return String(decoding: rule, as: UTF8.self)
    }
}
