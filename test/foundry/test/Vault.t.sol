// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

import {Vault} from "../src/Vault.sol";
import {Vm, VM_ADDRESS} from "../src/Vm.sol";

/// Run with `forge test --fork-url` against a chain where script/Deploy.s.sol ran (VAULT names it).
contract VaultForkTest {
    Vm constant vm = Vm(VM_ADDRESS);
    Vault vault;

    function setUp() external {
        vault = Vault(vm.envAddress("VAULT"));
    }

    function testReadsTheDeployedState() external view {
        require(vault.deposits() == 1, "one deposit");
        require(address(vault).balance == 3 ether, "3 ether held");
    }

    function testWithdrawsOnlyAfterTheUnlockTime() external {
        address owner = vault.owner();
        uint256 before = owner.balance;
        vm.warp(vault.unlockTime() - 1);
        vm.prank(owner);
        (bool isEarlyOk,) = address(vault).call(abi.encodeCall(Vault.withdraw, ()));
        require(!isEarlyOk, "withdrew before the unlock time");
        vm.warp(vault.unlockTime());
        vm.prank(owner);
        vault.withdraw();
        require(address(vault).balance == 0, "emptied");
        require(owner.balance == before + 3 ether, "owner paid");
    }
}
