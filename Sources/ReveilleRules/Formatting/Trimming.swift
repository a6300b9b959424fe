extension StringProtocol {
    /// The text without the white space (new lines included) at either end.
    package func trimmed() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }),
              let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(self[first...last])
    }
}
