"""The operators, in the order their mutants are made and reported."""
from .constants import ConstantPerturbed
from .masks import MaskDeadOnOddSizes, MaskDropped, MaskWeakened, OtherSwapped, UnmaskedOnEvenSizes
from .offsets import ArangeShifted, OffsetPlusOne, ProgramIdSwapped
from .reductions import AccumulatorLowered, MaxSubtractionRemoved, MaxSubtractionSkippedOnOddSizes, MeanToSum, SumToMean

OPERATORS = [
    MaskDropped(), MaskWeakened(), OtherSwapped(), MaskDeadOnOddSizes(), UnmaskedOnEvenSizes(),
    OffsetPlusOne(), ArangeShifted(), ProgramIdSwapped(),
    MaxSubtractionRemoved(), MaxSubtractionSkippedOnOddSizes(), SumToMean(), MeanToSum(), AccumulatorLowered(),
    ConstantPerturbed(),
]

BY_NAME = {op.name: op for op in OPERATORS}
