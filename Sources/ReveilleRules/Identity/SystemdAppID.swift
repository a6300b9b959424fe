import FoundationEssentials

/// The app id in a systemd unit name, as desktop environments name app units
/// (`app[-<launcher>]-<ID>[@<random>].service`, `app[-<launcher>]-<ID>-<random>.scope`),
/// the way xdg-desktop-portal identifies unsandboxed apps.
package enum SystemdAppID {
    /// The id from the last component of a cgroup v2 path (`0::/user.slice/.../app-gnome-org.gnome.Foo-1234.scope`),
    /// or `nil` when the process is not in an app unit.
    package static func from(cgroup: String) -> String? {
        guard let line = cgroup.split(separator: "\n").first(where: { $0.hasPrefix("0::") }),
              let unit = line.split(separator: "/").last.map(String.init), unit.hasPrefix("app-") else { return nil }
        var name = Substring(unit.dropFirst(4))
        if name.hasSuffix(".scope") {
            name = name.dropLast(6)
            // The scope's random suffix: the last dash-separated part, when it is a number or hex.
            if let dash = name.lastIndex(of: "-"), name[name.index(after: dash)...].allSatisfy(\.isHexDigit) {
                name = name[..<dash]
            }
        } else if name.hasSuffix(".service") {
            name = name.dropLast(8)
            if let at = name.firstIndex(of: "@") { name = name[..<at] }
        } else {
            return nil
        }
        // A launcher prefix (gnome, kde, flatpak...) has no dots; app ids are reverse-DNS.
        if let dash = name.firstIndex(of: "-"), !name[..<dash].contains("."), name[name.index(after: dash)...].contains(".") {
            name = name[name.index(after: dash)...]
        }
        let id = String(name.replacing("\\x2d", with: "-"))
        return id.isEmpty ? nil : id
    }
}
