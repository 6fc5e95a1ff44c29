import SweepImaging
import SweepSupport

/// A look preset file (`presets/looks/NAME.json`), version 1:
/// `{"version": 1, "description": "…", "brightness": 0, "contrast": 1, "saturation": 1, "hue": 0}`.
/// Every value is optional and defaults to no change; unknown keys are errors.
package struct LookPreset: Sendable, Equatable, Decodable {
    package var version: Int
    package var description: String?
    package var adjustments: Adjustments

    /// Valid ranges, shared with the command-line options.
    package static let brightnessRange = -1.0...1.0
    package static let contrastRange = 0.0...4.0
    package static let saturationRange = 0.0...10.0
    package static let hueRange = -3600.0...3600.0

    enum Keys: String, CodingKey, CaseIterable { case version, description, brightness, contrast, saturation, hue }

    package init(from decoder: any Decoder) throws {
        try StrictJSON.rejectUnknownKeys(in: decoder, allowed: Set(Keys.allCases.map(\.rawValue)))
        let c = try decoder.container(keyedBy: Keys.self)
        version = try StrictJSON.version(c, key: .version)
        description = try c.decodeIfPresent(String.self, forKey: .description)
        adjustments = try Self.decodeAdjustments(c, decoder: decoder)
    }

    /// Reads the four adjustment fields of any object that has them.
    static func decodeAdjustments<K: CodingKey>(_ c: KeyedDecodingContainer<K>, decoder: any Decoder) throws -> Adjustments {
        func value(_ name: String, _ def: Double, _ range: ClosedRange<Double>) throws -> Double {
            guard let key = K(stringValue: name) else { return def }
            let v = try c.decodeIfPresent(Double.self, forKey: key) ?? def
            try StrictJSON.check(v, name, in: range, decoder: decoder)
            return v
        }
        return Adjustments(
            brightness: try value("brightness", 0, brightnessRange),
            contrast: try value("contrast", 1, contrastRange),
            saturation: try value("saturation", 1, saturationRange),
            hue: try value("hue", 0, hueRange))
    }
}
