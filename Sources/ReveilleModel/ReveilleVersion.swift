/// Reveille's version, shown by `--version` on both binaries.
public enum ReveilleVersion {
    public static let current = "0.9.0"
}
