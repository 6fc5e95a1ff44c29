/// Results of work run on both cores at once, one box per task (the two sides' decodes,
/// a GIF's two palettes).
/// Safe: each iteration writes only its own box, and reads happen after the join.
final class LoadSlots<Value>: @unchecked Sendable {
    final class Box: @unchecked Sendable { var result: Result<Value, any Error>? }
    let count: Int
    private let boxes: [Box]
    init(count: Int) { self.count = count; boxes = (0..<count).map { _ in Box() } }
    func set(_ i: Int, _ r: Result<Value, any Error>) { boxes[i].result = r }
    func get(_ i: Int) throws -> Value { try boxes[i].result!.get() }
}
