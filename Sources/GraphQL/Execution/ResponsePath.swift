/// A response path built as execution descends, one shared node per step, turned
/// into an array only when an error or a resolver asks for it.
indirect enum ResponsePath: Sendable {
    case root
    case key(ResponsePath, String)
    case index(ResponsePath, Int)

    var elements: [PathElement] {
        var out: [PathElement] = []
        var node = self
        while true {
            switch node {
            case .root: return out.reversed()
            case .key(let parent, let key):
                out.append(.key(key))
                node = parent
            case .index(let parent, let index):
                out.append(.index(index))
                node = parent
            }
        }
    }
}
