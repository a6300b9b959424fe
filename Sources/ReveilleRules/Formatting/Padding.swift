extension Int {
    /// The number with leading zeros up to `width` digits: `7.zeroPadded()` is `07`.
    package func zeroPadded(_ width: Int = 2) -> String {
        let digits = String(magnitude)
        return (self < 0 ? "-" : "") + String(repeating: "0", count: Swift.max(0, width - digits.count)) + digits
    }
}

extension String {
    /// The text followed by spaces up to `width` characters, for columns; longer text stays whole.
    package func padded(to width: Int) -> String {
        self + String(repeating: " ", count: max(0, width - count))
    }
}
