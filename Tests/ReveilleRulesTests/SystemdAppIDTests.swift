@testable import ReveilleRules
import Testing

@Suite("Systemd app ids")
struct SystemdAppIDTests {
    @Test(arguments: [
        ("0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.gnome.Calendar-4242.scope", "org.gnome.Calendar"),
        ("0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.kde.kclock@3f2a.service", "org.kde.kclock"),
        ("0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-flatpak-org.example.Cook-99.scope", "org.example.Cook"),
        ("0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-my\\x2dtool-12.scope", "my-tool"),
    ])
    func appUnitsNameTheirApp(_ cgroup: String, _ expected: String) {
        #expect(SystemdAppID.from(cgroup: cgroup) == expected)
    }

    @Test(arguments: ["0::/user.slice/user-1000.slice/user@1000.service/app.slice/vte-spawn-1a2b.scope",
                      "0::/user.slice/user-1000.slice/session-2.scope", "0::/", ""])
    func otherUnitsNameNoApp(_ cgroup: String) {
        #expect(SystemdAppID.from(cgroup: cgroup) == nil)
    }
}
