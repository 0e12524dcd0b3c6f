/// The package's version, as `--version` prints it (`headless-table 0.1.0`).
public enum PackageVersion {
    public static let current = "0.1.0"
}
