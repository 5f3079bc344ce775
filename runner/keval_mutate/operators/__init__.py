"""The operators, in the order their mutants are made and reported. New ones go last: a mutant
that another operator already made is dropped, so an operator placed earlier would renumber the
ids of those after it (ids are how MUTANTS.md and stored results name mutants)."""
from .constants import ConstantPerturbed
from .layout import IndexTransposed, StrideSwapped
from .loops import LoopOneBlock
from .masks import MaskDeadOnOddSizes, MaskDropped, MaskWeakened, OtherSwapped, UnmaskedOnEvenSizes
from .offsets import ArangeShifted, OffsetPlusOne, ProgramIdSwapped
from .outputs import InputWrittenInPlace, OutputDtypeChanged, StoreRounded
from .reductions import (AccumulatorBfloat16, AccumulatorLowered, MaxSubtractionRemoved, MaxSubtractionSkippedOnOddSizes,
                         MeanToSum, SumToMean)

OPERATORS = [
    MaskDropped(), MaskWeakened(), OtherSwapped(), MaskDeadOnOddSizes(), UnmaskedOnEvenSizes(),
    OffsetPlusOne(), ArangeShifted(), ProgramIdSwapped(),
    MaxSubtractionRemoved(), MaxSubtractionSkippedOnOddSizes(), SumToMean(), MeanToSum(), AccumulatorLowered(),
    ConstantPerturbed(),
    StrideSwapped(), IndexTransposed(), LoopOneBlock(), StoreRounded(), OutputDtypeChanged(), InputWrittenInPlace(),
    AccumulatorBfloat16(),
]

BY_NAME = {op.name: op for op in OPERATORS}
