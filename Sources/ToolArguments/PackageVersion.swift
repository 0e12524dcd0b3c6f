/// The package's version, as `--version` prints it (`headless-table 0.1.0`).
package enum PackageVersion {
    package static let current = "0.1.0"
}
