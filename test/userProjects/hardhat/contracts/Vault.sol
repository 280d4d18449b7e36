// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// Holds ether until a release time; only the owner withdraws, and only after it.
contract Vault is Ownable {
    uint256 public immutable releaseTime;

    event Withdrawal(uint256 amount, uint256 when);

    constructor(uint256 releaseTime_) payable Ownable(msg.sender) {
        require(releaseTime_ > block.timestamp, "Release time should be in the future");
        releaseTime = releaseTime_;
    }

    function withdraw() external onlyOwner {
        require(block.timestamp >= releaseTime, "You can't withdraw yet");
        emit Withdrawal(address(this).balance, block.timestamp);
        payable(owner()).transfer(address(this).balance);
    }
}
