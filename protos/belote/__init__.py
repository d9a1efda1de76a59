"""Generated code of the Belote Arena protocols (the ``.proto`` files beside it; ``make proto``)."""
