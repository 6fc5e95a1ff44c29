import Foundation
import SweepCLI
import SweepServe
import SweepWorker

// Before anything else, while this is the only thread: the decode worker service forks.
DecodeWorker.startAtLaunch()
let arguments = Array(CommandLine.arguments.dropFirst())
exit(arguments.first == "serve" ? ServeCommand.run(Array(arguments.dropFirst())) : SweepCommand.run(arguments))
