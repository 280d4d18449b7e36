// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// Holds ether until a time; counts deposits. Small, but it reads time, storage and balances.
contract Vault {
    address public owner;
    uint256 public unlockTime;
    uint256 public deposits;

    event Deposited(address indexed from, uint256 amount);

    constructor(uint256 lockSeconds) payable {
        owner = msg.sender;
        unlockTime = block.timestamp + lockSeconds;
    }

    function deposit() external payable {
        deposits += 1;
        emit Deposited(msg.sender, msg.value);
    }

    function withdraw() external {
        require(block.timestamp >= unlockTime, "locked");
        require(msg.sender == owner, "not owner");
        (bool isSent,) = owner.call{value: address(this).balance}("");
        require(isSent, "transfer failed");
    }
}
