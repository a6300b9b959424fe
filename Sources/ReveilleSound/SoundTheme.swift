import CGLib
import FoundationEssentials
import ReveilleBus

/// The freedesktop Sound Theme specification's lookup: the user's theme, the themes it
/// inherits (its `index.theme`), then `freedesktop`, each searched in every `sounds` folder
/// of the XDG data directories; within a theme, its stereo directories; and a name that is
/// not found is tried again without its last dash-part (`alarm-clock-elapsed`, then
/// `alarm-clock`, then `alarm`).
package struct SoundTheme: Sendable {
    /// The themes searched, in order: the chosen one, what it inherits, then `freedesktop`.
    package let chain: [String]
    /// Every folder a theme's sounds are in, in search order.
    package let folders: [String]

    /// `name`'s chain over `bases` (folders holding themes: `$XDG_DATA_HOME/sounds`, then each
    /// `$XDG_DATA_DIRS/sounds`).
    package init(name: String, bases: [String]) {
        var chain: [String] = []
        func visit(_ theme: String, depth: Int) {
            guard depth < 16, !chain.contains(theme), Self.isPlainName(theme) else { return }
            chain.append(theme)
            for parent in Self.index(of: theme, in: bases)?.inherits ?? [] { visit(parent, depth: depth + 1) }
        }
        visit(name, depth: 0)
        visit("freedesktop", depth: 0)
        self.chain = chain
        folders = chain.flatMap { theme in
            bases.flatMap { base -> [String] in
                let root = "\(base)/\(theme)"
                let directories = Self.index(at: root + "/index.theme")?.stereoDirectories ?? ["stereo"]
                return directories.map { "\(root)/\($0)" }
            }
        }
    }

    /// `alarm-clock-elapsed`, `alarm-clock`, `alarm`: the spec's fallbacks for a name.
    package static func fallbacks(_ name: String) -> [String] {
        var names = [name]
        var current = Substring(name)
        while let dash = current.lastIndex(of: "-") {
            current = current[..<dash]
            if !current.isEmpty { names.append(String(current)) }
        }
        return names
    }

    /// The desktop's chosen theme: `REVEILLE_SOUND_THEME`, else GNOME's setting
    /// (`org.gnome.desktop.sound theme-name`, when its schema is installed), else `freedesktop`.
    package static func chosenName(environment: [String: String]) -> String {
        if let name = environment["REVEILLE_SOUND_THEME"], isPlainName(name) { return name }
        return gnomeThemeName() ?? "freedesktop"
    }

    /// GSettings' `theme-name`, read only if the schema exists (`g_settings_new` aborts otherwise).
    private static func gnomeThemeName() -> String? {
        guard let source = g_settings_schema_source_get_default(),
              let schema = g_settings_schema_source_lookup(source, "org.gnome.desktop.sound", 1) else { return nil }
        defer { g_settings_schema_unref(schema) }
        guard g_settings_schema_has_key(schema, "theme-name") != 0, let settings = g_settings_new("org.gnome.desktop.sound") else {
            return nil
        }
        defer { g_object_unref(settings) }
        guard let value = g_settings_get_string(settings, "theme-name") else { return nil }
        defer { g_free(value) }
        let name = String(cString: value)
        return isPlainName(name) ? name : nil
    }

    /// A theme or folder name that cannot reach outside the sounds folders.
    package static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.contains("/")
    }

    /// What a theme's `index.theme` says: its parents and its stereo directories.
    package struct Index {
        package var inherits: [String] = []
        package var stereoDirectories: [String] = []
    }

    private static func index(of theme: String, in bases: [String]) -> Index? {
        bases.lazy.compactMap { index(at: "\($0)/\(theme)/index.theme") }.first
    }

    /// Reads an `index.theme` (GLib's `GKeyFile`): `[Sound Theme]` with `Inherits` and
    /// `Directories` (comma-separated), and per directory its `OutputProfile`; directories
    /// for other outputs (5.1, surround) are left out, stereo ones and unmarked ones kept.
    package static func index(at path: String) -> Index? {
        guard let file = KeyFile(path: path), file.contains(group: "Sound Theme") else { return nil }
        let directories = file.list("Sound Theme", "Directories").filter(isPlainName)
            .filter { (file.string($0, "OutputProfile") ?? "stereo") == "stereo" }
        return Index(inherits: file.list("Sound Theme", "Inherits").filter(isPlainName), stereoDirectories: directories)
    }
}
