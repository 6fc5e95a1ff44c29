import Foundation
import SweepCLI

exit(SweepCommand.run(Array(CommandLine.arguments.dropFirst())))
