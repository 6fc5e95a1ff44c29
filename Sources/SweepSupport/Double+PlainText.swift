extension Double {
    /// The number as messages, help and HTML attributes write it: `3600`, `0.5` (no `.0` on
    /// a whole number; beyond ±1e15, where no whole number is exact, as `String` writes it).
    package var plainText: String { self == rounded() && abs(self) < 1e15 ? String(Int64(self)) : String(self) }
}
