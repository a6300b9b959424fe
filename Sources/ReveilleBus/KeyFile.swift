import CGLib
import ReveilleSystem
import SystemPackage

/// A desktop-entry-style file (`[Group]` and `key=value` lines), read by GLib's `GKeyFile`:
/// comments, escapes and locale-tagged keys as the freedesktop specs define them.
package struct KeyFile: Sendable {
    private let groups: [String: [String: String]]

    /// Reads `path` (`g_key_file_load_from_file`); `nil` when it is missing or malformed.
    /// Files larger than `maximumBytes` are not read.
    package init?(path: String, maximumBytes: Int = 1 << 20) {
        guard let status = try? FilePath(path).status(), status.kind == .regular, status.size <= maximumBytes,
              let file = g_key_file_new() else { return nil }
        defer { g_key_file_free(file) }
        guard g_key_file_load_from_file(file, path, G_KEY_FILE_NONE, nil) != 0 else { return nil }
        groups = Self.groups(of: file)
    }

    /// Reads a file's bytes already in memory (`g_key_file_load_from_data`); `nil` when malformed.
    package init?(bytes: some Collection<UInt8>) {
        guard let file = g_key_file_new() else { return nil }
        defer { g_key_file_free(file) }
        let loaded = Array(bytes).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                g_key_file_load_from_data(file, $0.baseAddress, gsize($0.count), G_KEY_FILE_NONE, nil)
            }
        }
        guard loaded != 0 else { return nil }
        groups = Self.groups(of: file)
    }

    private static func groups(of file: OpaquePointer) -> [String: [String: String]] {
        var groups: [String: [String: String]] = [:]
        var groupCount: gsize = 0
        if let names = g_key_file_get_groups(file, &groupCount) {
            defer { g_strfreev(names) }
            for index in 0..<Int(groupCount) {
                guard let group = names[index] else { continue }
                var keyCount: gsize = 0
                guard let keys = g_key_file_get_keys(file, group, &keyCount, nil) else { continue }
                defer { g_strfreev(keys) }
                var values: [String: String] = [:]
                for keyIndex in 0..<Int(keyCount) {
                    guard let key = keys[keyIndex], let value = g_key_file_get_string(file, group, key, nil) else { continue }
                    values[String(cString: key)] = String(cString: value)
                    g_free(value)
                }
                groups[String(cString: group)] = values
            }
        }
        return groups
    }

    /// Whether the file has `group`.
    package func contains(group: String) -> Bool { groups[group] != nil }

    /// The value of `key` in `group`, escapes processed (`g_key_file_get_string`).
    package func string(_ group: String, _ key: String) -> String? {
        groups[group]?[key]
    }

    /// A list value split at `separator` (the Sound and Icon Theme specs use commas), each
    /// item trimmed, empty ones left out.
    package func list(_ group: String, _ key: String, separator: Character = ",") -> [String] {
        (string(group, key) ?? "").split(separator: separator).map { item in
            String(item.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        }.filter { !$0.isEmpty }
    }
}
